#pragma once

#include "io/json.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz::io {

/// The token strings of a tokenizer and their ids, both ways. Ids run from 0 to size() - 1 without
/// gaps, so that every id a model's embedding table has names exactly one token.
class Vocabulary {
public:
    Vocabulary() = default;
    /// `tokens[id]` is the token with that id. Where a spelling repeats, find() gives the later id,
    /// as Hugging Face's vocabulary maps do.
    explicit Vocabulary(std::vector<std::string> tokens);

    /// A JSON object {"token": id, ...} (vocab.json, or tokenizer.json's model.vocab). Throws
    /// FormatError naming `where` when an id is not a whole number, repeats or leaves a gap.
    static Vocabulary fromJsonObject(const JsonValue& object, std::string_view where);

    std::optional<int> find(std::string_view token) const;
    /// The token with id `id`; throws std::out_of_range for an id outside the vocabulary.
    const std::string& token(int id) const;
    int size() const { return static_cast<int>(m_tokens.size()); }
    /// Gives `token` the next id, size().
    void append(std::string token);

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view>{}(s);
        }
    };

    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int, Hash, std::equal_to<>> m_ids;
};

} // namespace attnviz::io
