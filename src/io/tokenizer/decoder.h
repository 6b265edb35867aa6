#pragma once

#include "io/json.h"

#include <string>
#include <vector>

namespace attnviz::io {

/// tokenizer.json's "decoder": how the tokens of ids become text again. AttnViz reads ByteLevel,
/// Metaspace, Replace (a string), ByteFallback, Fuse, Strip and Sequence of these, or none (the
/// tokens joined by spaces), as Hugging Face's decoders run them, except that bytes which are no
/// UTF-8 stay as they are where Hugging Face writes U+FFFD: decode(encode(x)) gives x back.
class Decoder {
public:
    Decoder() = default;
    /// Throws FormatError naming an unsupported type or setting.
    static Decoder fromJson(const JsonValue* decoder);

    /// The text of `tokens` (vocabulary spellings, in order).
    std::string decode(std::vector<std::string> tokens) const;

private:
    struct Step {
        enum class Kind { ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip } kind;
        std::string from; ///< Replace's pattern, Metaspace's replacement, Strip's content
        std::string to; ///< Replace's content
        bool dropFirstReplacement = true; ///< Metaspace's prepend_scheme is not "never"
        std::size_t start = 0; ///< Strip's
        std::size_t stop = 0; ///< Strip's
    };

    void add(const JsonValue& decoder);

    std::vector<Step> m_steps;
    bool m_none = true; ///< no decoder: tokens are joined by spaces
};

} // namespace attnviz::io
