#pragma once

#include "io/tokenizer/byte_level_bpe.h"
#include "io/tokenizer/tokenizer_pipeline.h"
#include "io/tokenizer/word_piece.h"

#include <filesystem>
#include <memory>

namespace attnviz::io {

/// GPT-2's tokenizer from a Hugging Face folder: vocab.json + merges.txt, or tokenizer.json where
/// that is all the folder has. Throws ModelError with one sentence naming the file at fault, or
/// saying which files a GPT-2 folder needs.
ByteLevelBpe loadGpt2Tokenizer(const std::filesystem::path& folder);

/// BERT's lower-casing WordPiece from vocab.txt, or tokenizer.json. A tokenizer_config.json that
/// says `"do_lower_case": false` (a cased BERT) is refused: its ids would silently differ.
/// Throws ModelError.
WordPiece loadBertTokenizer(const std::filesystem::path& folder);

/// A modern BPE tokenizer (Llama, Mistral, Qwen2, SmolLM) from folder/tokenizer.json, with
/// add_bos_token, add_eos_token, bos_token and eos_token from folder/tokenizer_config.json when
/// there is one. Throws ModelError with one sentence naming the file at fault.
std::unique_ptr<TokenizerPipeline> loadTokenizerPipeline(const std::filesystem::path& folder);

} // namespace attnviz::io
