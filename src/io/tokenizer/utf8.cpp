#include "io/tokenizer/utf8.h"

namespace attnviz::io {
namespace {

// The length of the valid UTF-8 sequence starting at `i`, or 1 for a byte that starts none.
std::size_t sequenceLength(std::string_view text, std::size_t i)
{
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1
        : lead >= 0xC2 && lead < 0xE0      ? 2
        : lead >= 0xE0 && lead < 0xF0      ? 3
        : lead >= 0xF0 && lead < 0xF5      ? 4
                                           : 0;
    if (length <= 1 || i + length > text.size())
        return 1;
    for (std::size_t k = 1; k < length; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
            return 1;
    return length;
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

} // namespace

std::size_t countUtf8Characters(std::string_view text)
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size(); i += sequenceLength(text, i))
        ++count;
    return count;
}

std::size_t countUtf16Units(std::string_view text)
{
    std::size_t units = 0;
    for (std::size_t i = 0, n = 0; i < text.size(); i += n) {
        n = sequenceLength(text, i);
        units += n == 4 ? 2 : 1;
    }
    return units;
}

std::vector<std::string> splitUtf8Characters(std::string_view text)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = sequenceLength(text, i);
        out.emplace_back(text.substr(i, n));
        i += n;
    }
    return out;
}

std::vector<std::string> splitWords(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isSpace(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && !isSpace(text[i]))
            ++i;
        if (i > start)
            out.emplace_back(text.substr(start, i - start));
    }
    return out;
}

} // namespace attnviz::io
