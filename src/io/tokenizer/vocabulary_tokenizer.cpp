#include "io/tokenizer/vocabulary_tokenizer.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "io/tokenizer/utf8.h"

namespace attnviz::io {

VocabularyTokenizer::VocabularyTokenizer(std::vector<std::string> tokens, Unit unit)
    : m_tokens(std::move(tokens))
    , m_unit(unit)
{
    for (std::size_t i = 0; i < m_tokens.size(); ++i)
        m_ids.emplace(m_tokens[i], static_cast<int>(i));
}

std::vector<int> VocabularyTokenizer::encode(std::string_view text) const
{
    std::vector<int> ids;
    const std::vector<std::string> pieces =
        m_unit == Unit::Word ? splitWords(text) : splitUtf8Characters(text);
    for (const std::string& piece : pieces) {
        const auto found = id(piece);
        if (!found)
            throw engine::InputError(
                "The " + std::string(m_unit == Unit::Word ? "word" : "character") + " \"" +
                printable(piece) + "\" is not in the model's vocabulary of " +
                std::to_string(size()) + " tokens (see its vocab.json).");
        ids.push_back(*found);
    }
    return ids;
}

std::string VocabularyTokenizer::decode(const std::vector<int>& ids) const
{
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (m_unit == Unit::Word && i)
            text += ' ';
        text += token(ids[i]);
    }
    return text;
}

std::string VocabularyTokenizer::token(int id) const
{
    if (id < 0 || id >= size())
        throw engine::InputError("Token id " + std::to_string(id) +
                                 " is outside the vocabulary of " + std::to_string(size()) + ".");
    return m_tokens[static_cast<std::size_t>(id)];
}

std::optional<int> VocabularyTokenizer::id(std::string_view token) const
{
    const auto it = m_ids.find(std::string(token));
    return it == m_ids.end() ? std::nullopt : std::optional<int>(it->second);
}

std::string VocabularyTokenizer::displayToken(int id) const
{
    const std::string t = token(id);
    return t.starts_with(' ') ? "␣" + t.substr(1) : t;
}

} // namespace attnviz::io
