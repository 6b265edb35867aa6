#pragma once

#include <string_view>
#include <vector>

namespace attnviz::io {

/// Splits UTF-8 text into the words GPT-2's pre-tokenisation regex finds,
///   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
/// with Oniguruma's leftmost-first semantics, as Hugging Face's ByteLevel pre-tokenizer runs it.
/// A hand-written scanner rather than std::regex, which has neither \p{..} nor Unicode classes.
/// The words are views into `text` and together cover it exactly. A byte that is not valid UTF-8
/// counts as a character outside \s, \p{L} and \p{N}, so it joins a punctuation-like run and still
/// reaches the byte-level BPE, which can encode any byte.
std::vector<std::string_view> gpt2Words(std::string_view text);

} // namespace attnviz::io
