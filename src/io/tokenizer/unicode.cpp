#include "io/tokenizer/unicode.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace attnviz::io {
namespace {

struct Gpt2Run {
    char32_t first;
    Gpt2CharClass cls;
};

struct CodeRange {
    char32_t first;
    char32_t last;
};

/// Code points first, first + stride, ... up to last become `text`, or move by `delta` when text
/// is null; code points between the strides are unchanged.
struct BertFold {
    char32_t first;
    char32_t last;
    std::uint8_t stride;
    std::int32_t delta;
    const char* text;
};

using enum Gpt2CharClass;
#include "io/tokenizer/unicode_tables.inc"

/// The table entry with the largest `first` not above `codePoint`, or null.
template <typename Entry, std::size_t N>
const Entry* entryAtOrBefore(const Entry (&table)[N], char32_t codePoint)
{
    const Entry* next = std::upper_bound(std::begin(table), std::end(table), codePoint,
                                         [](char32_t c, const Entry& e) { return c < e.first; });
    return next == std::begin(table) ? nullptr : next - 1;
}

bool isContinuation(unsigned char b, unsigned char lo = 0x80, unsigned char hi = 0xBF)
{
    return b >= lo && b <= hi;
}

constexpr char32_t kHangulFirst = 0xAC00;
constexpr char32_t kHangulLast = 0xD7A3;

/// NFD of a precomposed Hangul syllable by the formula of Unicode section 3.12: a leading
/// consonant, a vowel and an optional trailing consonant. Jamo have no case, so this is final.
void appendHangulNfd(std::string& out, char32_t syllable)
{
    const char32_t s = syllable - kHangulFirst;
    appendUtf8(out, 0x1100 + s / 588);
    appendUtf8(out, 0x1161 + (s % 588) / 28);
    if (s % 28 != 0)
        appendUtf8(out, 0x11A7 + s % 28);
}

} // namespace

Utf8Char decodeUtf8(std::string_view text, std::size_t pos)
{
    constexpr Utf8Char kInvalid{0xFFFD, 1, false};
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
    const unsigned char b0 = byte(0);
    if (b0 < 0x80)
        return {b0, 1, true};

    // The second byte's allowed range excludes overlong forms (E0, F0), surrogates (ED) and
    // code points above U+10FFFF (F4): Unicode's table of well-formed byte sequences.
    std::size_t length = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        length = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        length = 3;
        cp = b0 & 0x0F;
        lo = b0 == 0xE0 ? 0xA0 : 0x80;
        hi = b0 == 0xED ? 0x9F : 0xBF;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        length = 4;
        cp = b0 & 0x07;
        lo = b0 == 0xF0 ? 0x90 : 0x80;
        hi = b0 == 0xF4 ? 0x8F : 0xBF;
    } else {
        return kInvalid;
    }
    if (text.size() - pos < length || !isContinuation(byte(1), lo, hi))
        return kInvalid;
    cp = (cp << 6) | (byte(1) & 0x3F);
    for (std::size_t i = 2; i < length; ++i) {
        if (!isContinuation(byte(i)))
            return kInvalid;
        cp = (cp << 6) | (byte(i) & 0x3F);
    }
    return {cp, length, true};
}

bool isValidUtf8(std::string_view text)
{
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        if (!c.valid)
            return false;
        pos += c.length;
    }
    return true;
}

void appendUtf8(std::string& out, char32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

Gpt2CharClass gpt2CharClass(char32_t codePoint)
{
    const Gpt2Run* run = entryAtOrBefore(kGpt2Runs, codePoint);
    return run ? run->cls : Other;
}

bool isWhitespace(char32_t codePoint)
{
    return gpt2CharClass(codePoint) == Space;
}

bool isBertPunctuation(char32_t codePoint)
{
    const CodeRange* range = entryAtOrBefore(kBertPunctuation, codePoint);
    return range && codePoint <= range->last;
}

bool isBertChineseChar(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
        (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
        (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
        (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void appendBertNormalized(std::string& out, char32_t codePoint)
{
    if (codePoint >= kHangulFirst && codePoint <= kHangulLast) {
        appendHangulNfd(out, codePoint);
        return;
    }
    const bool chinese = isBertChineseChar(codePoint);
    if (chinese)
        out += ' ';
    const BertFold* fold = entryAtOrBefore(kBertFolds, codePoint);
    if (!fold || codePoint > fold->last || (codePoint - fold->first) % fold->stride != 0)
        appendUtf8(out, codePoint);
    else if (fold->text)
        out += fold->text;
    else
        appendUtf8(out, static_cast<char32_t>(static_cast<std::int32_t>(codePoint) + fold->delta));
    if (chinese)
        out += ' ';
}

} // namespace attnviz::io
