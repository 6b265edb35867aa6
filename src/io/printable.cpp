#include "io/file_error.h"

#include <cstdio>

namespace attnviz::io {
namespace {

void escapeByte(std::string& out, unsigned char c)
{
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += hex;
}

// The code point of a well-formed UTF-8 character when it is a bidirectional formatting
// character (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), else 0.
char32_t bidiControl(std::string_view character)
{
    const auto byte = [&](std::size_t k) { return static_cast<char32_t>(character[k] & 0x3f); };
    char32_t cp = 0;
    if (character.size() == 2)
        cp = (static_cast<char32_t>(character[0] & 0x1f) << 6) | byte(1);
    else if (character.size() == 3)
        cp = (static_cast<char32_t>(character[0] & 0x0f) << 12) | (byte(1) << 6) | byte(2);
    const bool bidi = cp == 0x061c || cp == 0x200e || cp == 0x200f ||
        (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
    return bidi ? cp : 0;
}

// The length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
std::size_t sequenceLength(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char lead = byte(0);
    std::size_t n = 0;
    unsigned char low = 0x80, high = 0xbf; // the allowed range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
        n = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        n = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;
        high = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        n = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;
        high = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (i + n > text.size() || byte(1) < low || byte(1) > high)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(k) < 0x80 || byte(k) > 0xbf)
            return 0;
    return n;
}

} // namespace

std::string printable(std::string_view text, std::size_t limit)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (out.size() >= limit) {
            out += "…";
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        switch (c) {
        case '\n':
            out += "\\n";
            continue;
        case '\r':
            out += "\\r";
            continue;
        case '\t':
            out += "\\t";
            continue;
        case '\\':
            out += "\\\\";
            continue;
        default:
            break;
        }
        // C0 controls and DEL.
        if (c < 0x20 || c == 0x7f) {
            escapeByte(out, c);
            continue;
        }
        if (c < 0x80) {
            out += static_cast<char>(c);
            continue;
        }
        // Bytes that are not UTF-8 are escaped one by one: a lone 0x9b is CSI to a terminal that
        // reads 8-bit controls. C1 controls written as UTF-8 (0xC2 0x80–0x9F) are escaped too.
        const std::size_t n = sequenceLength(text, i);
        if (n == 0) {
            escapeByte(out, c);
        } else if (c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
            out += hex;
            ++i;
        } else if (const char32_t bidi = bidiControl(text.substr(i, n))) {
            // A bidi override or isolate would reorder the rest of the line on screen.
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(bidi));
            out += hex;
            i += n - 1;
        } else {
            out.append(text.substr(i, n)); // whole characters only, also at the limit
            i += n - 1;
        }
    }
    return out;
}

} // namespace attnviz::io
