#pragma once

#include "engine/model_config.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz::engine {

/// A model's tokens, id = position in the list, and the splitting of text into them.
class Vocabulary {
public:
    Vocabulary() = default;
    explicit Vocabulary(std::vector<std::string> tokens);

    int size() const { return static_cast<int>(m_tokens.size()); }
    const std::string& token(int id) const { return m_tokens.at(static_cast<std::size_t>(id)); }
    std::optional<int> id(const std::string& token) const;

    /// UTF-8 characters or whitespace-separated words.
    static std::vector<std::string> split(std::string_view text, TokenizerKind kind);
    /// The ids of `text`; throws InputError naming the first piece the vocabulary lacks.
    std::vector<int> encode(std::string_view text, TokenizerKind kind) const;
    std::vector<std::string> tokens(const std::vector<int>& ids) const;
    /// Characters joined as they are, words with a space between.
    std::string decode(const std::vector<int>& ids, TokenizerKind kind) const;

private:
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int> m_ids;
};

} // namespace attnviz::engine
