#pragma once

#include "io/tokenizer/longest_match.h"
#include "io/tokenizer/normalizer.h"
#include "io/tokenizer/oniguruma_regex.h"
#include "io/tokenizer/tokenizer_json.h"

#include <memory>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// Hugging Face's AddedVocabulary: the added tokens cut from the text before anything else, each
/// to one id. Tokens with normalized false are found in the raw text, the others in the text the
/// normaliser made of the stretches between the first ones (spelled as the normaliser spells
/// them). Matching is leftmost-longest; lstrip and rstrip take the whitespace before or after a
/// token along with it, and a single_word token counts only where no word character (\w)
/// touches it.
class AddedVocabulary {
public:
    AddedVocabulary() = default;
    /// `normalizer` spells the normalised tokens; it is not kept.
    AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalizer);

    /// A stretch of the text: ordinary text when `id` is negative, else an added token.
    struct Piece {
        std::size_t start = 0;
        std::size_t end = 0;
        int id = -1;
    };

    /// `text` cut at the raw (normalized false) or the normalised tokens. Pieces are in order and
    /// cover the text; text pieces are never empty. Bytes that are no UTF-8 are neither
    /// whitespace nor word characters.
    std::vector<Piece> split(std::string_view text, bool normalizedTokens) const;

    const std::vector<AddedToken>& tokens() const { return m_tokens; }

private:
    bool touchesWord(std::string_view text, std::size_t start, std::size_t end) const;

    std::vector<AddedToken> m_tokens;
    LongestMatchFinder m_raw; ///< values index m_tokens
    LongestMatchFinder m_normalized;
    std::shared_ptr<const OnigurumaRegex> m_wordCharacter; ///< only when a token is single_word
};

} // namespace attnviz::io
