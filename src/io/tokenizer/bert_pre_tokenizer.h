#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// The words uncased BERT looks up in its vocabulary, as Hugging Face's BertNormalizer (drop
/// control characters, whitespace to spaces, spaces around Chinese characters, strip accents,
/// lower case) and BertPreTokenizer (split at whitespace; each punctuation character is a word of
/// its own) make them. Bytes that are not valid UTF-8 are read as U+FFFD, which the cleaning
/// drops: what Hugging Face does with text decoded with errors="replace".
std::vector<std::string> bertWords(std::string_view text);

} // namespace attnviz::io
