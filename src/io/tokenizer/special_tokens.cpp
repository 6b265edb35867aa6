#include "io/tokenizer/special_tokens.h"

#include <algorithm>

namespace attnviz::io {

SpecialTokens::SpecialTokens(std::vector<std::pair<std::string, int>> tokens)
{
    std::erase_if(tokens, [](const auto& t) { return t.first.empty(); });
    std::stable_sort(tokens.begin(), tokens.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    m_tokens = std::move(tokens);
    for (int i = 0; i < static_cast<int>(m_tokens.size()); ++i)
        m_byFirstByte[static_cast<unsigned char>(m_tokens[i].first[0])].push_back(i);
}

std::vector<SpecialTokens::Piece> SpecialTokens::split(std::string_view text) const
{
    std::vector<Piece> pieces;
    std::size_t textStart = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const auto& candidates = m_byFirstByte[static_cast<unsigned char>(text[pos])];
        const auto match = std::find_if(candidates.begin(), candidates.end(), [&](int i) {
            return text.substr(pos).starts_with(m_tokens[i].first);
        });
        if (match == candidates.end()) {
            ++pos;
            continue;
        }
        if (pos > textStart)
            pieces.push_back({text.substr(textStart, pos - textStart)});
        const auto& [content, id] = m_tokens[*match];
        pieces.push_back({text.substr(pos, content.size()), id});
        pos += content.size();
        textStart = pos;
    }
    if (textStart < text.size())
        pieces.push_back({text.substr(textStart)});
    return pieces;
}

} // namespace attnviz::io
