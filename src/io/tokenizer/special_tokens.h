#pragma once

#include "io/tokenizer/longest_match.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::io {

/// Strings a tokenizer turns straight into one id wherever they occur in the text, before any
/// normalisation or splitting: Hugging Face's "added tokens", such as GPT-2's <|endoftext|> and
/// BERT's [CLS], [SEP] and [MASK]. Typing "[MASK]" into BERT's input gives the mask id, exactly
/// as in Hugging Face. Matching is case-sensitive and leftmost-longest, like its AddedVocabulary;
/// the lstrip, rstrip and single_word options of added tokens are not supported.
class SpecialTokens {
public:
    /// One stretch of the input: ordinary text when `id` is negative, else a special token.
    struct Piece {
        std::string_view text;
        int id = -1;
    };

    SpecialTokens() = default;
    /// (content, id) pairs; empty contents are ignored, as they can never match, and of equal
    /// contents the first is kept.
    explicit SpecialTokens(std::vector<std::pair<std::string, int>> tokens);

    /// `text` cut into ordinary stretches and special tokens, in order; no piece of text is empty.
    std::vector<Piece> split(std::string_view text) const;

private:
    LongestMatchFinder m_finder;
};

} // namespace attnviz::io
