#pragma once

#include "io/tokenizer/tokenizer.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace attnviz::io {

/// AttnViz's own tokenizers: one token per UTF-8 character, or one per whitespace-separated
/// word, looked up in a model's vocab.json (a JSON array of tokens, id = position).
class VocabularyTokenizer : public Tokenizer {
public:
    enum class Unit { Character, Word };
    /// `tokens` must be distinct (the loader checks).
    VocabularyTokenizer(std::vector<std::string> tokens, Unit unit);

    std::string_view kind() const override { return m_unit == Unit::Word ? "word" : "char"; }
    int size() const override { return static_cast<int>(m_tokens.size()); }
    /// Throws InputError naming the first character or word the vocabulary lacks.
    std::vector<int> encode(std::string_view text) const override;
    /// A character is a token and takes at most 4 bytes; a word may be of any length.
    std::size_t fewestTokens(std::string_view text) const override
    {
        return m_unit == Unit::Character ? (text.size() + 3) / 4 : 0;
    }
    /// Characters joined as they are, words with a space between.
    std::string decode(const std::vector<int>& ids) const override;
    std::string token(int id) const override;
    std::optional<int> id(std::string_view token) const override;
    /// A leading space is shown as ␣, so a space token (or an imported " cat") has a visible
    /// label.
    std::string displayToken(int id) const override;

private:
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int> m_ids;
    Unit m_unit;
};

} // namespace attnviz::io
