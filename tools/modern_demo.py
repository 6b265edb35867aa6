"""The `modern` demo of tools/train_demo_models.py: a small language model built the way today's
models are (rotary positions, grouped K/V heads, RMSNorm, SwiGLU, sliding-window layers between
full ones), trained on the King James Bible and saved as a Hugging Face Qwen2 folder with its own
SentencePiece-style tokenizer.

    /usr/bin/python3 tools/train_demo_models.py modern

Writes resources/models/modern/{config.json, model.safetensors, tokenizer.json,
tokenizer_config.json, heldout.txt, README.md} and tests/data/models/modern/reference.safetensors
(`case{i}.` + every engine dump name, from tools/make_modern_model_references.py's float64
forward over the stored bfloat16 weights; metadata `case{i}.text`, `case{i}.ids`).
"""
import json
import math
import pathlib
import random
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_llama_family_folders as folders  # noqa: E402
import make_modern_model_references as reference  # noqa: E402
import safetensors_py  # noqa: E402
from llama_py import ModernLm  # noqa: E402
from sentencepiece_bpe_py import SentencePieceBpe  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDER = ROOT / "resources" / "models" / "modern"
REFERENCE = ROOT / "tests" / "data" / "models" / "modern"

CONTEXT = 128          # tokens per training window, BOS included
WINDOW = 16            # keys a sliding-window layer sees
WINDOW_LAYERS = [True, False, True, False]
CONFIG = dict(reference.BASE, vocab_size=1024, hidden_size=96, num_heads=6, num_kv_heads=2,
              head_dim=16, d_ff=256, layers=len(WINDOW_LAYERS), max_length=CONTEXT,
              norm_eps=1e-6, rope_theta=10000.0, attention_bias=True, sliding_window=WINDOW,
              window_layers=WINDOW_LAYERS, tied=True)
FOLDER_OPTIONS = dict(
    model_type="qwen2", architecture="Qwen2ForCausalLM", dtype="BF16",
    config=dict(use_sliding_window=True, sliding_window=WINDOW, max_window_layers=0,
                layer_types=["sliding_attention" if w else "full_attention"
                             for w in WINDOW_LAYERS],
                bos_token_id=1, eos_token_id=2))
EXAMPLE = ("In the beginning God created the heaven and the earth. And the earth was without "
           "form, and void; and darkness was upon the face of the deep.")
CASES = [EXAMPLE, "And God said, Let there be light: and there was light."]
STEPS, BATCH, LEARNING_RATE, WEIGHT_DECAY = 3000, 16, 3e-3, 0.01


def bible_verses():
    """[(book, text)] of the King James Version from Debian's bible-kjv, in order."""
    out = subprocess.run(["bible", "-f", "gen1:1-rev22:21"], capture_output=True, text=True,
                         check=True).stdout
    verses = []
    for line in out.splitlines():
        reference_, _, text = line.strip().partition(" ")
        if ":" in reference_ and text:
            verses.append((reference_.rstrip("0123456789:"), " ".join(text.split())))
    return verses


def heldout_lines(bpe, verses, tokens_per_line=90):
    """Held-out verses grouped into lines of about 90 tokens (more than a window's reach)."""
    lines, current = [], []
    for text in verses:
        current.append(text)
        if len(bpe.encode(" ".join(current))) >= tokens_per_line:
            lines.append(" ".join(current))
            current = []
    return lines


def head_table(model, bpe, lines):
    """Per layer and head over held-out lines: the share of weight on the first token (BOS) for
    queries that can see it and more, the share on the previous token, and the mean distance
    looked back."""
    records = {}
    with torch.no_grad():
        for text in lines:
            ids = bpe.encode(text)[:CONTEXT]
            w = {k: v.double() for k, v in model.state_dict().items()}
            t = reference.forward(CONFIG, w, ids)
            for L in range(CONFIG["layers"]):
                weights = t[f"layer{L}.masked_self.weights"][0]   # [H, N, N]
                N = weights.shape[-1]
                i = torch.arange(N)
                sees_first = (i >= 1) & ((i < WINDOW) | (not WINDOW_LAYERS[L]))
                sink = weights[:, sees_first, 0].mean(-1)
                prev = weights[:, i[1:], i[1:] - 1].mean(-1)
                dist = (weights * (i[:, None] - i[None, :]).clamp(min=0)).sum(-1)[:, 1:].mean(-1)
                for h in range(weights.shape[0]):
                    records.setdefault((L, h), []).append((float(sink[h]), float(prev[h]),
                                                           float(dist[h])))
    return {k: tuple(sum(col) / len(col) for col in zip(*v)) for k, v in records.items()}


def describe(sink, prev, dist):
    if sink > 0.5:
        return "attention sink: parks most of its weight on `<s>`"
    if prev > 0.5:
        return "previous-token head"
    if dist > 8:
        return "looks far back"
    return "local: the last few tokens"


def train_modern(train):
    """train: train_demo_models.train, the shared AdamW one-cycle loop."""
    torch.manual_seed(25)
    rng = random.Random(25)
    verses = bible_verses()
    train_verses = [t for b, t in verses if b != "Rev"]
    held_verses = [t for b, t in verses if b == "Rev"]
    start = time.time()
    bpe = SentencePieceBpe.train(" ".join(train_verses), CONFIG["vocab_size"])
    print(f"modern: tokenizer of {len(bpe.vocab)} pieces in {time.time() - start:.0f} s", flush=True)

    # One stream of tokens; a window starts at a verse, after <s>.
    stream, starts = [], []
    for text in train_verses:
        starts.append(len(stream))
        stream.extend(bpe.encode(text, bos=False))
    stream = torch.tensor(stream)
    starts = [s for s in starts if s + CONTEXT <= len(stream)]
    bos = bpe.vocab["<s>"]

    def batch(size):
        rows = [torch.cat((torch.tensor([bos]), stream[s:s + CONTEXT])) for s in
                rng.sample(starts, size)]
        x = torch.stack(rows)
        return x[:, :-1], x[:, 1:]

    lines = heldout_lines(bpe, held_verses)
    held = [torch.tensor(bpe.encode(line)[:CONTEXT + 1]) for line in lines]

    model = ModernLm(CONFIG)

    def step_loss():
        x, y = batch(BATCH)
        logits = model(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    loss_value, minutes = train("modern", model, STEPS, LEARNING_RATE, 0.05, step_loss,
                                WEIGHT_DECAY)

    # What is stored is bfloat16, as Qwen2's checkpoints are: every figure below is of those
    # rounded weights.
    model.eval()
    weights = {k: folders.bf16_exact(v.detach().double()) for k, v in model.state_dict().items()}
    with torch.no_grad():
        model.load_state_dict({k: v.float() for k, v in weights.items()})
        losses, hits, count = 0.0, 0, 0
        for ids in held:
            logits = model(ids[None, :-1])[0]
            losses += float(F.cross_entropy(logits, ids[1:], reduction="sum"))
            hits += int((logits.argmax(-1) == ids[1:]).sum())
            count += len(ids) - 1
    valid_loss, valid_acc = losses / count, hits / count
    prompt = "In the beginning God"
    ids = bpe.encode(prompt)
    with torch.no_grad():
        for _ in range(40):
            ids.append(int(model(torch.tensor([ids[-CONTEXT:]]))[0, -1].argmax()))
    sample = "".join(bpe.pieces_of(ids[1:])).replace("\u2581", " ").strip()
    print(f"modern: train loss {loss_value:.3f}, held-out loss {valid_loss:.3f}, "
          f"accuracy {valid_acc:.3f}; {sample!r}", flush=True)

    heads = head_table(model, bpe, lines[:40])
    write_folder(bpe, weights, lines)
    write_reference(bpe, weights)
    write_readme(locals(), heads, len(stream), len(train_verses))


def write_folder(bpe, weights, lines):
    FOLDER.mkdir(parents=True, exist_ok=True)
    c = dict(CONFIG)
    config = folders.config_json("modern", FOLDER_OPTIONS, c)
    (FOLDER / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    bpe.write(FOLDER)
    folders.write_weights(FOLDER, weights, "BF16", 1)
    folders.read_back(FOLDER, weights)
    (FOLDER / "heldout.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def write_reference(bpe, weights):
    tensors, metadata = {}, {"cases": str(len(CASES))}
    for i, text in enumerate(CASES):
        ids = bpe.encode(text)
        t = reference.forward(CONFIG, weights, ids)
        reference.check("modern", CONFIG, weights, ids, t)
        tensors.update({f"case{i}.{k}": v.numpy().astype(np.float32) for k, v in t.items()})
        metadata[f"case{i}.text"] = text
        metadata[f"case{i}.ids"] = json.dumps(ids)
    REFERENCE.mkdir(parents=True, exist_ok=True)
    safetensors_py.save(REFERENCE / "reference.safetensors", tensors, metadata)


def write_readme(run, heads, stream_tokens, train_verse_count):
    c = CONFIG
    rows = "\n".join(
        f"| {L} | {h} | {h // (c['num_heads'] // c['num_kv_heads'])} | "
        f"{'window ' + str(WINDOW) if WINDOW_LAYERS[L] else 'full'} | {sink:.2f} | {prev:.2f} | "
        f"{dist:.1f} | {describe(sink, prev, dist)} |"
        for (L, h), (sink, prev, dist) in sorted(heads.items()))
    params = sum(int(np.prod(v.shape)) for v in run["weights"].values())
    kv_bytes = 2 * c["layers"] * c["num_kv_heads"] * c["head_dim"] * 2
    (FOLDER / "README.md").write_text(f"""# modern — a small language model built as today's are

A decoder-only model with the parts a student meets in Llama, Mistral and Qwen2, trained on the
King James Bible and stored as a Hugging Face **Qwen2** folder (`config.json`,
`model.safetensors` in bfloat16, `tokenizer.json`), so AttnViz opens it with the same code as a
downloaded checkpoint. Trained by `/usr/bin/python3 tools/train_demo_models.py modern` (seeded,
CPU, {run['minutes']:.0f} min on 2 cores).

- **Parts.** Rotary positions (θ = {c['rope_theta']:g}, on all {c['head_dim']} features of each
  head); {c['num_heads']} query heads sharing {c['num_kv_heads']} K/V heads (grouped-query
  attention, {c['num_heads'] // c['num_kv_heads']} query heads per K/V head); RMSNorm before each
  sublayer and at the end; a SwiGLU feed-forward block (`down(silu(gate x) ⊙ up x)`, width
  {c['d_ff']}); biases on q, k and v only, as Qwen2; the output tied to the embedding.
- **Local and global layers.** Layers {', '.join(str(L) for L, w in enumerate(WINDOW_LAYERS) if w)}
  attend through a sliding window of {WINDOW} keys; layers
  {', '.join(str(L) for L, w in enumerate(WINDOW_LAYERS) if not w)} see the whole context, the
  pattern of Gemma 2 and 3 (`layer_types` in config.json).
- **Size.** Width {c['hidden_size']}, {c['layers']} layers, head size {c['head_dim']},
  {params:,} parameters; the K/V cache holds {kv_bytes} bytes per token in bfloat16
  (2 · layers · H_kv · d · 2 bytes).
- **Tokenizer.** A SentencePiece-style BPE of {len(run['bpe'].vocab)} pieces learned from the
  training text (`tools/sentencepiece_bpe_py.py`): `<unk>`, `<s>`, `</s>`, 256 byte pieces,
  the text's characters and {len(run['bpe'].merges)} merges; `<s>` starts every text, as in
  Llama 2 and Mistral.
- **Data.** The King James Version (public domain) from Debian's `bible-kjv`, verse numbers
  removed, case and punctuation kept: every book but Revelation for training
  ({train_verse_count:,} verses, {stream_tokens:,} tokens); Revelation is held out and is
  `heldout.txt` ({len(run['lines'])} lines of about 90 tokens).
- **Training.** {STEPS} steps of {BATCH} windows of {CONTEXT} tokens, each window `<s>` followed
  by text from the start of a verse; AdamW (lr {LEARNING_RATE:g}, one-cycle, weight decay {WEIGHT_DECAY:g}).
- **Result.** Final training loss {run['loss_value']:.3f} nats/token; on Revelation, loss
  {run['valid_loss']:.3f} and next-token accuracy {run['valid_acc'] * 100:.1f} %.
- Greedy continuation of "{run['prompt']}": "{run['sample']}"

Heads on the first 40 held-out lines. `<s>`: the share of weight on the first token, for the
queries that can see it (within the window on local layers) and something else too; `prev`: on
the previous token; `reach`: the mean number of tokens looked back.

| layer | head | K/V head | keys | `<s>` | prev | reach | reading |
|--:|--:|--:|---|--:|--:|--:|---|
{rows}

A head that parks its weight on `<s>` is an attention sink (Xiao et al., 2023): softmax must give
each row a total of 1, and a head with nothing to read on a token puts it on the first one, which
every query sees. In AttnViz, Experiments ▸ Attention sinks draws this share as layers × heads.
""", encoding="utf-8")
