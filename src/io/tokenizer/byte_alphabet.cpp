#include "io/tokenizer/byte_alphabet.h"

#include "io/tokenizer/unicode.h"

namespace attnviz::io {

const std::array<char32_t, 256>& byteSymbols()
{
    static const std::array<char32_t, 256> symbols = [] {
        std::array<char32_t, 256> s{};
        char32_t next = 0x100;
        for (char32_t b = 0; b < 256; ++b) {
            const bool visible =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            s[b] = visible ? b : next++;
        }
        return s;
    }();
    return symbols;
}

void appendByteSymbols(std::string& out, std::string_view bytes)
{
    // Each symbol's UTF-8 once, so that a megabyte of text costs a table lookup per byte.
    static const std::array<std::string, 256> spelled = [] {
        std::array<std::string, 256> s;
        for (int b = 0; b < 256; ++b)
            appendUtf8(s[b], byteSymbols()[b]);
        return s;
    }();
    for (const char c : bytes)
        out += spelled[static_cast<unsigned char>(c)];
}

std::optional<std::string> bytesOfSymbols(std::string_view token)
{
    static const std::array<int, 0x200> byteOfSymbol = [] {
        std::array<int, 0x200> inverse{};
        inverse.fill(-1);
        for (int b = 0; b < 256; ++b)
            inverse[byteSymbols()[b]] = b;
        return inverse;
    }();
    std::string bytes;
    for (std::size_t pos = 0; pos < token.size();) {
        const Utf8Char c = decodeUtf8(token, pos);
        if (!c.valid || c.codePoint >= byteOfSymbol.size() || byteOfSymbol[c.codePoint] < 0)
            return std::nullopt;
        bytes += static_cast<char>(byteOfSymbol[c.codePoint]);
        pos += c.length;
    }
    return bytes;
}

} // namespace attnviz::io
