#include "io/tokenizer/special_tokens.h"

namespace attnviz::io {

SpecialTokens::SpecialTokens(std::vector<std::pair<std::string, int>> tokens)
    : m_finder([&] {
        std::vector<std::pair<std::string_view, int>> strings(tokens.begin(), tokens.end());
        return LongestMatchFinder(strings);
    }())
{
}

std::vector<SpecialTokens::Piece> SpecialTokens::split(std::string_view text) const
{
    std::vector<Piece> pieces;
    if (m_finder.empty()) {
        if (!text.empty())
            pieces.push_back({text});
        return pieces;
    }
    const std::vector<LongestMatchFinder::Match> longest = m_finder.longestStartingAt(text);
    std::size_t textStart = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const LongestMatchFinder::Match match = longest[pos];
        if (match.length == 0) {
            ++pos;
            continue;
        }
        if (pos > textStart)
            pieces.push_back({text.substr(textStart, pos - textStart)});
        pieces.push_back({text.substr(pos, match.length), match.value});
        pos += match.length;
        textStart = pos;
    }
    if (textStart < text.size())
        pieces.push_back({text.substr(textStart)});
    return pieces;
}

} // namespace attnviz::io
