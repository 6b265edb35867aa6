#pragma once

#include "io/json.h"
#include "io/tokenizer/oniguruma_regex.h"

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// A piece of text on its way to the model, as Hugging Face's pre-tokenizers cut it.
struct PreToken {
    std::string text;
    /// Whether it starts at the input's first byte (Metaspace's prepend_scheme "first" asks).
    bool startsText = false;
};

/// tokenizer.json's "pre_tokenizer": how each normalised stretch of text is cut into the words the
/// model encodes one by one. AttnViz reads Split (a string or an Oniguruma pattern, any behaviour,
/// inverted or not), ByteLevel (which also spells the words in GPT-2's byte alphabet), Digits,
/// Metaspace and Sequence of these, or none.
class PreTokenizer {
public:
    /// None: the whole stretch is one word.
    PreTokenizer() = default;
    /// From the "pre_tokenizer" member (null or absent: none). Throws FormatError naming an
    /// unsupported type or setting.
    static PreTokenizer fromJson(const JsonValue* preTokenizer);

    /// The words of `utf8` (valid UTF-8, not empty); empty words are dropped. A split pattern that
    /// runs past `deadline` throws engine::InputError.
    std::vector<PreToken> apply(PreToken stretch,
                                std::chrono::steady_clock::time_point deadline) const;
    /// Whether a ByteLevel step spells the words in the byte alphabet.
    bool byteLevel() const;

    /// How a split treats the text a pattern matches, as Hugging Face's SplitDelimiterBehavior.
    enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

private:
    struct Step {
        enum class Kind { SplitRegex, SplitString, ByteLevel, Digits, Metaspace } kind;
        Behavior behavior = Behavior::Isolated;
        bool invert = false;
        std::shared_ptr<const OnigurumaRegex> regex; ///< SplitRegex's
        std::string text; ///< SplitString's string, Metaspace's replacement
        bool addPrefixSpace = false; ///< ByteLevel's
        bool useRegex = true; ///< ByteLevel's
        bool individualDigits = false; ///< Digits'
        enum class Prepend { Always, First, Never } prepend = Prepend::Always; ///< Metaspace's
        bool split = true; ///< Metaspace's
    };

    void add(const JsonValue& preTokenizer);
    void applyStep(const Step& step, std::vector<PreToken>& pieces,
                   std::chrono::steady_clock::time_point deadline) const;

    std::vector<Step> m_steps;
};

} // namespace attnviz::io
