#include "io/tokenizer/vocabulary.h"

#include "io/file_error.h"
#include "io/safetensors.h"

#include <stdexcept>

namespace attnviz::io {

Vocabulary::Vocabulary(std::vector<std::string> tokens)
    : m_tokens(std::move(tokens))
{
    m_ids.reserve(m_tokens.size());
    for (int id = 0; id < size(); ++id)
        m_ids.insert_or_assign(m_tokens[id], id);
}

Vocabulary Vocabulary::fromJsonObject(const JsonValue& object, std::string_view where)
{
    const std::string place(where);
    if (!object.isObject())
        throw FormatError(place + " is " + object.describe() +
                          "; expected an object of tokens and ids");
    const JsonValue::Object& members = object.asObject();
    std::vector<std::string> tokens(members.size());
    std::vector<bool> seen(members.size(), false);
    for (const auto& [token, id] : members) {
        if (!id.isInteger() || id.asInteger() < 0)
            throw FormatError(place + " gives \"" + printable(token) + "\" the id " +
                              id.describe() + "; expected a whole number from 0");
        const std::int64_t i = id.asInteger();
        if (i >= static_cast<std::int64_t>(members.size()))
            throw FormatError(place + " gives \"" + printable(token) + "\" the id " +
                              std::to_string(i) + ", past its " + std::to_string(members.size()) +
                              " tokens; expected ids from 0 without gaps");
        if (seen[i])
            throw FormatError(place + " gives the id " + std::to_string(i) + " to both \"" +
                              printable(tokens[i]) + "\" and \"" + printable(token) + "\"");
        tokens[i] = token;
        seen[i] = true;
    }
    // Ids below the token count that never repeat fill every slot, so there can be no gap.
    return Vocabulary(std::move(tokens));
}

std::optional<int> Vocabulary::find(std::string_view token) const
{
    const auto it = m_ids.find(token);
    if (it == m_ids.end())
        return std::nullopt;
    return it->second;
}

const std::string& Vocabulary::token(int id) const
{
    if (id < 0 || id >= size())
        throw std::out_of_range("token id " + std::to_string(id) +
                                " is outside the vocabulary of " + std::to_string(size()) +
                                " tokens");
    return m_tokens[id];
}

void Vocabulary::append(std::string token)
{
    m_ids.insert_or_assign(token, size());
    m_tokens.push_back(std::move(token));
}

} // namespace attnviz::io
