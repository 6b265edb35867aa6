#include "io/tokenizer/added_vocabulary.h"

#include "io/tokenizer/unicode.h"

namespace attnviz::io {
namespace {

/// Rust regex's Unicode \w, which Hugging Face tests single_word tokens with.
constexpr std::string_view kWordCharacter = R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}])";

bool whitespaceAt(std::string_view text, std::size_t pos)
{
    const Utf8Char c = decodeUtf8(text, pos);
    return c.valid && isWhitespace(c.codePoint);
}

/// The start of the character that ends at `end` (`end` > 0): at most 3 bytes back.
std::size_t characterBefore(std::string_view text, std::size_t end)
{
    for (std::size_t back = 1; back <= 4 && back <= end; ++back) {
        const Utf8Char c = decodeUtf8(text, end - back);
        if (c.valid && c.length == back)
            return end - back;
    }
    return end - 1;
}

} // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalizer)
    : m_tokens(std::move(tokens))
{
    std::vector<std::string> spelled(m_tokens.size());
    std::vector<std::pair<std::string_view, int>> raw, normalized;
    for (std::size_t k = 0; k < m_tokens.size(); ++k) {
        const AddedToken& token = m_tokens[k];
        if (token.normalized) {
            spelled[k] =
                isValidUtf8(token.content) ? normalizer.apply(token.content) : token.content;
            normalized.emplace_back(spelled[k], static_cast<int>(k));
        } else {
            raw.emplace_back(token.content, static_cast<int>(k));
        }
        if (token.singleWord && !m_wordCharacter)
            m_wordCharacter = std::make_shared<const OnigurumaRegex>(kWordCharacter, "\\w");
    }
    m_raw = LongestMatchFinder(raw);
    m_normalized = LongestMatchFinder(normalized);
}

bool AddedVocabulary::touchesWord(std::string_view text, std::size_t start, std::size_t end) const
{
    const auto wordAt = [&](std::size_t pos) {
        const Utf8Char c = decodeUtf8(text, pos);
        return c.valid && m_wordCharacter->matchesAtStart(text.substr(pos, c.length));
    };
    return (start > 0 && wordAt(characterBefore(text, start))) ||
        (end < text.size() && wordAt(end));
}

std::vector<AddedVocabulary::Piece> AddedVocabulary::split(std::string_view text,
                                                           bool normalizedTokens) const
{
    const LongestMatchFinder& finder = normalizedTokens ? m_normalized : m_raw;
    std::vector<Piece> pieces;
    if (finder.empty()) {
        if (!text.empty())
            pieces.push_back({0, text.size()});
        return pieces;
    }
    // Hugging Face's find_matches: the leftmost-longest matches in turn, each widened by its
    // lstrip and rstrip (never back into the previous piece), a single_word one skipped where a
    // word character touches it.
    const std::vector<LongestMatchFinder::Match> longest = finder.longestStartingAt(text);
    std::size_t textStart = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const LongestMatchFinder::Match match = longest[pos];
        if (match.length == 0) {
            ++pos;
            continue;
        }
        const AddedToken& token = m_tokens[static_cast<std::size_t>(match.value)];
        std::size_t start = pos, end = pos + match.length;
        pos = end;
        if (token.singleWord && touchesWord(text, start, end))
            continue;
        if (token.lstrip) {
            std::size_t spaces = start;
            while (spaces > textStart) {
                const std::size_t before = characterBefore(text, spaces);
                if (!whitespaceAt(text, before))
                    break;
                spaces = before;
            }
            start = std::max(spaces, textStart);
        }
        if (token.rstrip)
            while (end < text.size() && whitespaceAt(text, end))
                end += decodeUtf8(text, end).length;
        if (textStart < start)
            pieces.push_back({textStart, start});
        pieces.push_back({start, end, token.id});
        textStart = std::max(textStart, end);
    }
    if (textStart < text.size())
        pieces.push_back({textStart, text.size()});
    return pieces;
}

} // namespace attnviz::io
