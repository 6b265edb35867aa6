#include "engine/vocabulary.h"

#include "engine/input_error.h"

#include <algorithm>
#include <cctype>

namespace attnviz::engine {

Vocabulary::Vocabulary(std::vector<std::string> tokens)
    : m_tokens(std::move(tokens))
{
    for (std::size_t i = 0; i < m_tokens.size(); ++i)
        m_ids.emplace(m_tokens[i], static_cast<int>(i));
}

std::optional<int> Vocabulary::id(const std::string& token) const
{
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? std::nullopt : std::optional<int>(it->second);
}

std::vector<std::string> Vocabulary::split(std::string_view text, TokenizerKind kind)
{
    std::vector<std::string> pieces;
    if (kind == TokenizerKind::Word) {
        std::size_t i = 0;
        while (i < text.size()) {
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
                ++i;
            const std::size_t start = i;
            while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
                ++i;
            if (i > start)
                pieces.emplace_back(text.substr(start, i - start));
        }
        return pieces;
    }
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        // The lead byte says how long the character is; a stray continuation byte stands alone.
        const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        pieces.emplace_back(text.substr(i, std::min(length, text.size() - i)));
        i += length;
    }
    return pieces;
}

std::vector<int> Vocabulary::encode(std::string_view text, TokenizerKind kind) const
{
    std::vector<int> ids;
    for (const std::string& piece : split(text, kind)) {
        const auto found = id(piece);
        if (!found)
            throw InputError("The " + std::string(kind == TokenizerKind::Word ? "word" : "character") + " \"" +
                             piece + "\" is not in the model's vocabulary of " + std::to_string(size()) +
                             " tokens (see its vocab.json).");
        ids.push_back(*found);
    }
    return ids;
}

std::vector<std::string> Vocabulary::tokens(const std::vector<int>& ids) const
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const int i : ids)
        out.push_back(token(i));
    return out;
}

std::string Vocabulary::decode(const std::vector<int>& ids, TokenizerKind kind) const
{
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (kind == TokenizerKind::Word && i)
            text += ' ';
        text += token(ids[i]);
    }
    return text;
}

} // namespace attnviz::engine
