#!/usr/bin/env node
// Writes tests/data/tokenizers/{llama3,llama2,qwen2,smollm,mistral}_reference.json: the ids Hugging Face
// gives the test texts with the tokenizer.json files tools/fetch_modern_tokenizers.mjs wrote, which
// io::TokenizerPipeline must reproduce exactly. Run after that tool:
//   node tools/make_modern_tokenizer_references.mjs
//
// The ids come from the Rust `tokenizers` library (0.22.2) through its npm build
// @anush008/tokenizers 0.6.0: "ids" without special tokens, "ids_with_special" with the
// post-processor's (for Llama 2 the <s> its template adds; Llama 3's file as shipped adds none),
// "decoded" = decode(ids, skip_special_tokens=false). Each text is also run through
// @lenml/tokenizers 3.7.2 (transformers.js without the network), the library issue #24 names;
// where it gives other ids the case records them as "lenml_ids" (or "lenml_ids_with_special"),
// and Hugging Face's ids stay the reference.
//
// The first case of every file is the text the model references (tools/make_modern_model_references.py)
// read. Invalid UTF-8 cannot be tested here (neither library accepts it); see docs/tokenizers.md.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withNpmPackages } from "./npm_sandbox.mjs";

const dataDir = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "data", "tokenizers");
const generator = "tools/make_modern_tokenizer_references.mjs";
const reference = "Hugging Face tokenizers 0.22.2 (Rust) through @anush008/tokenizers 0.6.0";

/// About 2,000 characters of running text in several scripts, with numbers and a quote.
function longText() {
  const paragraph = "Attention lets every token look at every other token. In 2017, Vaswani et al. "
    + "wrote \"Attention Is All You Need\"; 8 heads × 64 dimensions = 512 features. Naïve "
    + "readers ask: why divide by √d_k? 注意力机制让每个词看见其他词。 Внимание — всё, что нужно! "
    + "😀 They'Re right; it's 3.14159...  \n\n";
  let text = "";
  for (let i = 1; [...text].length < 2000; ++i) text += `${i}. ${paragraph}`;
  return [...text].slice(0, 2000).join("");
}

/// `count` random mixes of the hard parts, from a fixed seed so that reruns give the same file.
function randomMixes(count) {
  let seed = 20250224;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const pools = ["abcXYZ", "0123456789", "٠١٢٣", "  \t\n\r", "!\"#$%&'()*,-./:;<=>?@[]^_`{|}~",
    "'sdtmrevlSDTMREVL", "àçéïñöüÀÇÉÏÑÖÜßæøİı", "\u0300\u0301\u0308\u0327", "中文分词一豈",
    "한국어", "あいカタ", "😀👍🏽\u200d❤️🤗", "\u00a0\u2000\u3000\u2028\u0085\u000b\u200b\ufeff\u00ad\u001b\u007f",
    "ΣΊσςΩ", "Привет", "مرحبا", "नमस्ते", "▁"].map((pool) => [...pool]);
  const pieces = ["<|begin_of_text|>", "<|end_of_text|>", "<s>", "</s>", "<unk>", "<0x41>",
    "<|begin_of_text", "'ll", "n't", "  ", "\n\n", "1234567"];
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

const digitRuns = Array.from({ length: 12 }, (_, n) => "1234567890ab".slice(0, n + 1).replace(/[ab]/g, "9"));

const texts = [
  // the lead's model references read the ids of this first text
  "Attention: the cat sat on the mat, 1234 times — 猫 😀!",
  // everyday text
  "Hello world", " Hello world", "hello world", "Hello", "The quick brown fox jumps over the lazy dog.",
  "I have a new GPU!", "unaffable", "Multi-head attention splits the features into heads.",
  // spaces, tabs, newlines
  "", " ", "  ", "   ", "    ", " ".repeat(17), "  leading spaces", "trailing spaces   ",
  "multiple   spaces   between", "a  b", "a \tb", "\t tab\tseparated\t", "\t\t\t", "line one\nline two",
  "\n", "\n\n", "\n\n\n\n", " \n ", "para\n\n\nbreak", "\r\n windows \r\n", "x \n\n y", "a\n \n b",
  "  \n  \n", "end with newline\n", "\n start with newline", " \t \n \r ", "word \n\tword",
  // contractions in any case
  "don't", "I'm", "I'M", "They'Ve", "THEY'VE", "we're they've she'd it's I'm you'll", "'s 't 're",
  "''quoted''", "rock'n'roll", "Don'T", "can't won't shan't", "It'S", "I'Ll", "you'D", " 'd",
  // punctuation and code
  "Hello!!! What?!... (yes) [no] {maybe} <tag> #hash @at $5.00 100% a&b", "...", "---",
  "!@#$%^&*()_+-=[]{}|;':\",./<>?`~", "def f(x):\n    return x**2  # square\n",
  "https://example.com/path?q=1&r=2 mail@example.org", "if (a < b) {\n\treturn;\n}",
  // digit runs of every length, and other digits
  ...digitRuns, "3.14159", "In 2024, 1,000,000 people", "123abc456", "0x1F600", "a1b22c333d4444",
  "31415926535897932384626433832795028841971693993751", "٠١٢٣٤٥٦٧٨٩", "１２３４", "²³¹ ½ Ⅻ", "1 2 3",
  // accents, composed and decomposed (NFC matters for Qwen2), and case
  "café", "cafe\u0301", "naïve", "nai\u0308ve", "Ünïcödé", "U\u0308ni\u0308co\u0308de\u0301",
  "Ångström", "A\u030Angstro\u0308m", "\u212Bngstrom", "CAFÉ", "CAFE\u0301", "résumé façade jalapeño",
  "e\u0301 combining", "\u1E9B\u0323", "\uAC00 \u1100\u1161", "İstanbul", "ΣΊΣΥΦΟΣ", "Straße",
  "\uFB01 ligature", "\u01C4 \u01C5 \u01C6", "Ωmega \u2126hm", "\u0958\u0959",
  // CJK and other scripts
  "猫", "你好", "中文分词", "日本語のテキスト", "한국어", "我爱北京天安门。", "混合English和中文",
  "\uF900\uFA0E compat", "\u{20000}\u{2A6DF}", "ＡＢＣ１２３", "Привет мир", "مرحبا بالعالم", "שלום",
  "नमस्ते दुनिया", "สวัสดีครับ", "Γειά σου Κόσμε", "ᚠᛇᚻ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  // emoji, with skin tones, flags and ZWJ sequences
  "😀", "😀😀😀", "👍🏽", "family 👨‍👩‍👧‍👦", "👩‍💻 codes", "🏳️‍🌈", "🇫🇷🇯🇵", "I ❤️ NY", "🤗 transformers",
  "🧑🏿‍🤝‍🧑🏻", "emoji😀inside", "🫠🪿",
  // control and format characters, unusual whitespace
  "a\u0000b", "\u0000", "a\u0007b\u001Bc", "\u200Bzero\u200Bwidth", "soft\u00ADhyphen", "\uFEFFbom",
  "\u0085nel", "\u00A0nbsp\u00A0", "\u3000ideographic space", "line\u2028sep", "\uFFFD replacement",
  "\u001C\u001D\u001E\u001F", "\u007F del", "private \uE000 use", "\u000B\u000Cvt ff", "x \uFEFFy",
  "\u1C89 new letter", "a\u07FDb", "\u2E43 \u2E52", "\u0890\u0891",
  // text that looks like special tokens or byte pieces
  "<|begin_of_text|>", "<|begin_of_text|>Hello", "Hi<|end_of_text|>there", " <|begin_of_text|> ",
  "<|begin_of_text|><|begin_of_text|>", "<|begin_of_text", "<|eot_id|>", "<|reserved_special_token_5|>",
  "<s>", "</s>", "<unk>", "<s>Hello</s>", " <s> ", "a<s>b", "<s><s>", "<0x41>", "<0x0A>", "<0xE4><0xBD>",
  "▁", "▁▁hello", "hello▁world", "Ġhello", "Ċ",
  // long words and long text
  "a".repeat(100), "x".repeat(300), "supercalifragilisticexpialidocious", "😀".repeat(50),
  "中".repeat(100), "1".repeat(100), longText(),
  ...randomMixes(100),
];

/// The derived files' @lenml loader needs a tokenizer_config.json; these are their models' own.
const configs = {
  qwen2: { tokenizer_class: "Qwen2Tokenizer", bos_token: null, eos_token: "<|end_of_text|>" },
  mistral: { tokenizer_class: "LlamaTokenizer", bos_token: "<s>", eos_token: "</s>", unk_token: "<unk>",
    add_bos_token: true, add_eos_token: false, legacy: false },
  smollm: { tokenizer_class: "GPT2Tokenizer", bos_token: "<|begin_of_text|>", eos_token: "<|end_of_text|>",
    add_bos_token: false },
};

const visibleJson = (value) => JSON.stringify(value).replace(
  /[\u007F-\u009F\u00AD\u200B-\u200F\u2028\u2029\u2060\uFEFF\uE000-\uF8FF\uFFFD]/g,
  (c) => "\\u" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));

function writeReference(name, cases, extra) {
  const head = JSON.stringify({ generator, reference, ...extra }).slice(0, -1);
  const body = cases.map((c) => "    " + visibleJson(c)).join(",\n");
  writeFileSync(join(dataDir, `${name}_reference.json`), `${head},\n  "cases": [\n${body}\n  ]\n}\n`);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

await withNpmPackages(["@anush008/tokenizers@0.6.0", "@lenml/tokenizers@3.7.2"], async (require) => {
  const { Tokenizer } = require("@anush008/tokenizers");
  const { TokenizerLoader } = require("@lenml/tokenizers");
  const summary = [];
  for (const name of ["llama3", "llama2", "qwen2", "smollm", "mistral"]) {
    const dir = join(dataDir, name);
    const json = readFileSync(join(dir, "tokenizer.json"), "utf8");
    let config = configs[name];
    if (!config) config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
    const hf = Tokenizer.fromString(json);
    const lenml = TokenizerLoader.fromPreTrained({ tokenizerJSON: JSON.parse(json), tokenizerConfig: config });
    const cases = [];
    let lenmlDisagreements = 0;
    for (const text of texts) {
      const ids = (await hf.encode(text, null, { addSpecialTokens: false })).getIds();
      const withSpecial = (await hf.encode(text, null, { addSpecialTokens: true })).getIds();
      const entry = { text, ids, ids_with_special: withSpecial, decoded: await hf.decode(ids, false) };
      const lenmlIds = lenml.encode(text, { add_special_tokens: false });
      const lenmlWithSpecial = lenml.encode(text, { add_special_tokens: true });
      if (!same(lenmlIds, ids)) entry.lenml_ids = lenmlIds;
      if (!same(lenmlWithSpecial, withSpecial)) entry.lenml_ids_with_special = lenmlWithSpecial;
      if (entry.lenml_ids || entry.lenml_ids_with_special) ++lenmlDisagreements;
      cases.push(entry);
    }
    writeReference(name, cases, {
      tokenizer: `tests/data/tokenizers/${name}/tokenizer.json`,
      lenml_ids: "@lenml/tokenizers 3.7.2's ids, only where they differ from Hugging Face's",
      lenml_disagreements: lenmlDisagreements,
    });
    summary.push(`${name}: ${cases.length} cases, @lenml differs on ${lenmlDisagreements}`);
  }
  console.log(summary.join("\n"));
});
