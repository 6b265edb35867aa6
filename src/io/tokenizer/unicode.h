#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnviz::io {

/// One character read from UTF-8 text by decodeUtf8.
struct Utf8Char {
    char32_t codePoint = 0; ///< U+FFFD when the bytes at the read position are not valid UTF-8
    std::size_t length = 1; ///< bytes consumed, 1 to 4; always 1 for an invalid byte
    bool valid = true;
};

/// Reads the character that starts at byte `pos` of `text` (`pos < text.size()`) without reading
/// past the end. Overlong forms, surrogates, code points above U+10FFFF, stray continuation bytes
/// and truncated sequences are invalid; each invalid byte is consumed on its own, so a caller can
/// keep the raw byte (GPT-2 is byte-level) or treat it as U+FFFD (BERT).
Utf8Char decodeUtf8(std::string_view text, std::size_t pos);

/// Whether every byte of `text` belongs to a valid character, as decodeUtf8 reads them.
bool isValidUtf8(std::string_view text);

/// Appends `codePoint` (at most U+10FFFF, not a surrogate) to `out` as UTF-8.
void appendUtf8(std::string& out, char32_t codePoint);

/// How GPT-2's pre-tokenisation regex sees a character: as \p{L}, \p{N}, \s or none of them.
enum class Gpt2CharClass { Letter, Number, Space, Other };

/// The class Hugging Face's tokenizers (Oniguruma's Unicode tables) give `codePoint`.
Gpt2CharClass gpt2CharClass(char32_t codePoint);

/// Whether `codePoint` has Unicode's White_Space property: 25 code points, the same for GPT-2's \s
/// and for the whitespace BertPreTokenizer splits at.
bool isWhitespace(char32_t codePoint);

/// Whether BertPreTokenizer splits `codePoint` off as punctuation: ASCII 33-47, 58-64, 91-96 and
/// 123-126, plus the code points the tokenizers' Unicode tables put in a P* category.
bool isBertPunctuation(char32_t codePoint);

/// Whether BertNormalizer puts spaces around `codePoint`: the CJK Unified Ideographs blocks as the
/// Rust tokenizers list them (Python's BertTokenizer starts one range at U+2B820, not U+2B920).
bool isBertChineseChar(char32_t codePoint);

/// Appends what uncased BertNormalizer makes of one character: nothing for NUL, U+FFFD and control
/// or format characters; a space for whitespace; otherwise NFD with nonspacing marks dropped, then
/// lower case, with a space on each side of a Chinese character.
void appendBertNormalized(std::string& out, char32_t codePoint);

} // namespace attnviz::io
