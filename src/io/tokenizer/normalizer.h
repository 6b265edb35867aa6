#pragma once

#include "io/json.h"
#include "io/tokenizer/oniguruma_regex.h"

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// tokenizer.json's "normalizer", the first step of Hugging Face's pipeline: what it does to each
/// stretch of text between added tokens. AttnViz reads NFC, NFD, NFKC and NFKD (utf8proc),
/// Prepend, Replace (a string or an Oniguruma pattern) and Sequence of these, or none.
class Normalizer {
public:
    /// None.
    Normalizer() = default;
    /// From the "normalizer" member (null or absent: none). Throws FormatError naming an
    /// unsupported type.
    static Normalizer fromJson(const JsonValue* normalizer);

    /// `utf8` (valid UTF-8) normalised; returns valid UTF-8. A Replace pattern still searching
    /// at `deadline` (the encode's one deadline) throws engine::InputError naming it.
    std::string apply(std::string_view utf8,
                      std::chrono::steady_clock::time_point deadline =
                          std::chrono::steady_clock::time_point::max()) const;
    bool empty() const { return m_steps.empty(); }

private:
    struct Step {
        enum class Kind { UnicodeForm, Prepend, ReplaceString, ReplaceRegex } kind;
        int utf8procOptions = 0; ///< UnicodeForm's
        std::string pattern; ///< Prepend's text, Replace's string
        std::string content; ///< what Replace puts instead
        std::shared_ptr<const OnigurumaRegex> regex; ///< ReplaceRegex's
    };

    void add(const JsonValue& normalizer);

    std::vector<Step> m_steps;
};

} // namespace attnviz::io
