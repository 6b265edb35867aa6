"""A SentencePiece-style BPE tokenizer (the kind Llama 2, Mistral and TinyLlama ship), trained
here from word counts and written as a Hugging Face tokenizer.json.

Used by tools/train_demo_models.py for the `modern` demo. The file has the pieces of Llama 2's
(normaliser Prepend "▁" + Replace " " -> "▁", no pre-tokenizer, BPE with byte fallback, the
template "<s> $A", the Replace/ByteFallback/Fuse/Strip decoder), so AttnViz reads it with the
same code path as a real Llama 2 or Mistral folder; tests/model/modern_demo_test.cpp checks that
the C++ pipeline gives the ids this encoder gave during training.

Encoding follows Hugging Face's BPE: the lowest-ranked merge first, the leftmost on a tie.
Training only counts pairs inside a word ("▁" + the word), so no merge ever crosses a "▁"
boundary and encoding word by word equals encoding the whole text.
"""
import collections
import json

SPACE = "\u2581"
SPECIALS = ["<unk>", "<s>", "</s>"]


class SentencePieceBpe:
    def __init__(self, vocab, merges):
        self.vocab = vocab                      # piece -> id
        self.pieces = {i: p for p, i in vocab.items()}
        self.merges = merges                    # [(left, right)], in rank order
        self.rank = {pair: r for r, pair in enumerate(merges)}
        self.cache = {}

    @staticmethod
    def train(text, vocab_size):
        """Merges learned from the words of `text` until the vocabulary holds vocab_size pieces:
        3 special tokens, 256 byte pieces, every character of the text, then the merges."""
        counts = collections.Counter(SPACE + w for w in text.split(" ") if w)
        vocab = {p: i for i, p in enumerate(SPECIALS + [f"<0x{b:02X}>" for b in range(256)])}
        for ch in sorted({c for w in counts for c in w}):
            vocab.setdefault(ch, len(vocab))
        words = {w: list(w) for w in counts}
        merges = []
        while len(vocab) < vocab_size:
            pairs = collections.Counter()
            for w, symbols in words.items():
                for a, b in zip(symbols, symbols[1:]):
                    pairs[(a, b)] += counts[w]
            if not pairs:
                break
            # Most frequent, then the smaller pair: a deterministic order.
            best = min(pairs, key=lambda p: (-pairs[p], p))
            merges.append(best)
            vocab[best[0] + best[1]] = len(vocab)
            for w, symbols in words.items():
                words[w] = merged(symbols, best)
        return SentencePieceBpe(vocab, merges)

    def encode_word(self, word):
        if word in self.cache:
            return self.cache[word]
        symbols = list(word)
        while len(symbols) > 1:
            ranked = [(self.rank.get(pair, len(self.rank)), i)
                      for i, pair in enumerate(zip(symbols, symbols[1:]))]
            r, i = min(ranked)
            if r == len(self.rank):
                break
            symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
        ids = []
        for s in symbols:
            if s in self.vocab:
                ids.append(self.vocab[s])
            else:
                ids.extend(self.vocab[f"<0x{b:02X}>"] for b in s.encode("utf-8"))
        self.cache[word] = ids
        return ids

    def encode(self, text, bos=True):
        """Ids as Hugging Face gives them for this tokenizer.json: "<s>" first, then each
        "▁"-led word of the normalised text."""
        normalised = SPACE + text.replace(" ", SPACE)
        ids = [self.vocab["<s>"]] if bos else []
        start = 0
        for i in range(1, len(normalised) + 1):
            if i == len(normalised) or normalised[i] == SPACE:
                ids.extend(self.encode_word(normalised[start:i]))
                start = i
        return ids

    def pieces_of(self, ids):
        return [self.pieces[i] for i in ids]

    def tokenizer_json(self):
        special = [{"id": self.vocab[t], "content": t, "single_word": False, "lstrip": False,
                    "rstrip": False, "normalized": False, "special": True} for t in SPECIALS]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": special,
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": SPACE},
                {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]},
            "pre_tokenizer": None,
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                         {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "<s>", "type_id": 1}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [self.vocab["<s>"]],
                                           "tokens": ["<s>"]}}},
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": self.vocab, "merges": [f"{a} {b}" for a, b in self.merges]},
        }

    def write(self, folder):
        (folder / "tokenizer.json").write_text(
            json.dumps(self.tokenizer_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        config = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<s>",
                  "eos_token": "</s>", "unk_token": "<unk>", "model_max_length": 1000000,
                  "tokenizer_class": "LlamaTokenizer", "legacy": False}
        (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


def merged(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out
