#!/usr/bin/env node
// Writes src/io/tokenizer/unicode_tables.inc: the per-code-point facts AttnViz's GPT-2 and BERT
// tokenizers need, as sorted range tables.  Run: node tools/make_unicode_tables.mjs
//
// The facts are read from Hugging Face's own Rust tokenizers (0.22.2, through the npm build
// @anush008/tokenizers 0.6.0) by running its components on every code point, not from a Unicode
// database. That library mixes Unicode versions: GPT-2's \p{L}, \p{N} and \s come from Oniguruma
// (Unicode 16), BERT's punctuation, control and accent tests from the unicode_categories crate (an
// old Unicode, before 9.0), case and NFD from Rust's std and unicode-normalization. Tables built from
// Python 3.11's unicodedata (Unicode 14) disagree with it on 9,392 code points for GPT-2 and on 560
// for BERT, so the tokenizers would not give Hugging Face's ids on that text.
//
// What is asked of the reference, per code point c (surrogates excluded: UTF-8 cannot hold them):
//   GPT-2 class   ByteLevel pre-tokenizer on "a"+c, "1"+c, "!"+c, "\t"+c: the first that stays one
//                 piece says whether c is a letter, number, other or space for GPT-2's regex.
//   BERT          BertPreTokenizer on "a"+c+"a" (three pieces: c is punctuation; two: whitespace,
//                 checked to be GPT-2's \s), and the BertNormalizer (clean text, Chinese
//                 characters, strip accents, lower case) on c.
// Hangul syllables (NFD by formula) and the Chinese-character spacing are done in code; the script
// checks that the reference agrees with that code before leaving them out of the tables.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withNpmPackages } from "./npm_sandbox.mjs";

const outPath = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "io", "tokenizer",
  "unicode_tables.inc");

// The same ranges as isBertChineseChar in src/io/tokenizer/unicode.cpp (and as the Rust
// normalizer, which starts one range at 0x2B920 where Python's BertTokenizer says 0x2B820).
const chineseRanges = [[0x4E00, 0x9FFF], [0x3400, 0x4DBF], [0x20000, 0x2A6DF], [0x2A700, 0x2B73F],
  [0x2B740, 0x2B81F], [0x2B920, 0x2CEAF], [0xF900, 0xFAFF], [0x2F800, 0x2FA1F]];
const isChinese = (c) => chineseRanges.some(([a, b]) => c >= a && c <= b);

/// NFD of a precomposed Hangul syllable (Unicode 3.12), as unicode.cpp computes it.
function hangulNfd(c) {
  const s = c - 0xAC00;
  const l = 0x1100 + Math.floor(s / 588), v = 0x1161 + Math.floor((s % 588) / 28), t = s % 28;
  return String.fromCodePoint(l, v) + (t ? String.fromCodePoint(0x11A7 + t) : "");
}

function probe(tokenizers) {
  const byteLevel = tokenizers.byteLevelPreTokenizer(false, true);
  const bertPre = tokenizers.bertPreTokenizer();
  const bertNorm = tokenizers.bertNormalizer(
    { cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true });
  const onePiece = (text) => byteLevel.preTokenizeString(text).length === 1;
  const classes = [], punctuation = [], folds = new Map();
  for (let c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const s = String.fromCodePoint(c);
    const cls = onePiece("a" + s) ? "Letter" : onePiece("1" + s) ? "Number"
      : onePiece("!" + s) ? "Other" : onePiece("\t" + s) ? "Space" : null;
    if (!cls) throw new Error(`U+${c.toString(16)} fits no GPT-2 character class`);
    classes.push([c, cls]);
    const bertPieces = bertPre.preTokenizeString("a" + s + "a").length;
    if (bertPieces === 3) punctuation.push(c);
    if ((bertPieces === 2) !== (cls === "Space"))
      throw new Error(`U+${c.toString(16)}: BERT's whitespace differs from GPT-2's \\s`);

    let folded = bertNorm.normalizeString(s);
    if (isChinese(c) !== (folded.length > 1 && folded.startsWith(" ") && folded.endsWith(" ")))
      throw new Error(`U+${c.toString(16)}: Chinese-character spacing differs from the code's`);
    if (isChinese(c)) folded = folded.slice(1, -1);
    if (c >= 0xAC00 && c <= 0xD7A3) {
      if (folded !== hangulNfd(c)) throw new Error(`U+${c.toString(16)}: Hangul NFD differs`);
      continue;
    }
    if (folded !== s) folds.set(c, folded);
  }
  return { classes, punctuation, folds };
}

/// Consecutive code points with the same class collapse into one run, kept by its first code point.
function classRuns(classes) {
  return classes.filter(([c, cls], i) => i === 0 || classes[i - 1][1] !== cls
    || classes[i - 1][0] !== c - 1);
}

function ranges(codePoints) {
  const out = [];
  for (const c of codePoints) {
    if (out.length && out[out.length - 1][1] === c - 1) out[out.length - 1][1] = c;
    else out.push([c, c]);
  }
  return out;
}

/// Fold entries {first, last, stride, delta, text}: a run of code points that all become the same
/// text, or a run of three or more (every code point, or every second one) that each move by the
/// same delta, as case pairs do; anything else is one entry per code point.
function foldEntries(folds) {
  const keys = [...folds.keys()].sort((a, b) => a - b);
  const delta = (c) => {
    const t = folds.get(c);
    return t !== undefined && [...t].length === 1 ? t.codePointAt(0) - c : null;
  };
  const entries = [];
  for (let i = 0; i < keys.length;) {
    const first = keys[i], text = folds.get(first);
    let j = i;
    while (j + 1 < keys.length && keys[j + 1] === keys[j] + 1 && folds.get(keys[j + 1]) === text) ++j;
    if (j > i) {
      entries.push({ first, last: keys[j], stride: 1, delta: 0, text });
      i = j + 1;
      continue;
    }
    const d = delta(first);
    let best = null;
    for (const stride of [1, 2]) {
      let last = first;
      // a stride-2 run leaves the code points between its steps unchanged
      while (d !== null && delta(last + stride) === d && (stride === 1 || !folds.has(last + 1)))
        last += stride;
      if ((last - first) / stride >= 2 && (!best || last > best.last)) best = { first, last, stride, delta: d };
    }
    if (best) {
      entries.push({ ...best, text: null });
      i = keys.indexOf(best.last, i) + 1;
    } else {
      entries.push({ first, last: first, stride: 1, delta: 0, text });
      i += 1;
    }
  }
  return entries;
}

const hex = (c) => "0x" + c.toString(16).toUpperCase().padStart(4, "0");
// Octal escapes stop after three digits, so no following character can extend them.
const cString = (text) => '"' + [...Buffer.from(text, "utf8")]
  .map((b) => (b >= 0x20 && b < 0x7F && b !== 0x22 && b !== 0x5C ? String.fromCharCode(b)
    : "\\" + b.toString(8).padStart(3, "0"))).join("") + '"';

function render({ classes, punctuation, folds }) {
  const runs = classRuns(classes);
  const punct = ranges(punctuation);
  const entries = foldEntries(folds);
  const lines = [
    "// Generated by tools/make_unicode_tables.mjs from Hugging Face tokenizers 0.22.2; do not edit.",
    "// Included by src/io/tokenizer/unicode.cpp only.",
    "",
    "// GPT-2 pre-tokenizer class of every code point from `first` up to the next run's first.",
    `constexpr Gpt2Run kGpt2Runs[${runs.length}] = {`,
    ...runs.map(([c, cls]) => `    {${hex(c)}, ${cls}},`),
    "};",
    "",
    "// Code points BertPreTokenizer splits off as punctuation, as inclusive ranges.",
    `constexpr CodeRange kBertPunctuation[${punct.length}] = {`,
    ...punct.map(([a, b]) => `    {${hex(a)}, ${hex(b)}},`),
    "};",
    "",
    "// What BertNormalizer (uncased) makes of each code point it changes, Hangul syllables and the",
    "// spaces around Chinese characters aside: {first, last, stride, delta, text}.",
    `constexpr BertFold kBertFolds[${entries.length}] = {`,
    ...entries.map((e) => `    {${hex(e.first)}, ${hex(e.last)}, ${e.stride}, ${e.delta}, `
      + `${e.text === null ? "nullptr" : cString(e.text)}},`),
    "};",
    "",
  ];
  return { text: lines.join("\n"), counts: [runs.length, punct.length, entries.length] };
}

await withNpmPackages(["@anush008/tokenizers@0.6.0"], async (require) => {
  const { text, counts } = render(probe(require("@anush008/tokenizers")));
  writeFileSync(outPath, text);
  console.log(`wrote ${outPath}: ${counts[0]} class runs, ${counts[1]} punctuation ranges, `
    + `${counts[2]} BERT folds`);
});
