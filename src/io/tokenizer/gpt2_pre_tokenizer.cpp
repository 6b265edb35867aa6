#include "io/tokenizer/gpt2_pre_tokenizer.h"

#include "io/tokenizer/unicode.h"

#include <cstddef>

namespace attnviz::io {
namespace {

struct Char {
    std::size_t begin; ///< byte offset in the text
    char32_t codePoint; ///< U+FFFD for an invalid byte
    Gpt2CharClass cls;
};

std::vector<Char> decodeAll(std::string_view text)
{
    std::vector<Char> chars;
    chars.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        chars.push_back(
            {pos, c.codePoint, c.valid ? gpt2CharClass(c.codePoint) : Gpt2CharClass::Other});
        pos += c.length;
    }
    return chars;
}

/// The end (in characters) of a contraction 's 't 're 've 'm 'll 'd starting at `i`, or `i`.
/// Lower case only, as in the regex: "I'LL" splits into "I", "'", "LL".
std::size_t contractionEnd(const std::vector<Char>& chars, std::size_t i)
{
    const auto at = [&](std::size_t k) {
        return i + k < chars.size() ? chars[i + k].codePoint : 0;
    };
    if (at(0) != U'\'')
        return i;
    switch (at(1)) {
    case U's':
    case U't':
    case U'm':
    case U'd':
        return i + 2;
    case U'r':
    case U'v':
        return at(2) == U'e' ? i + 3 : i;
    case U'l':
        return at(2) == U'l' ? i + 3 : i;
    default:
        return i;
    }
}

} // namespace

std::vector<std::string_view> gpt2Words(std::string_view text)
{
    const std::vector<Char> chars = decodeAll(text);
    const std::size_t n = chars.size();
    const auto clsAt = [&](std::size_t i) { return chars[i].cls; };
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < n;) {
        std::size_t end = contractionEnd(chars, i);
        if (end == i) {
            // ` ?\p{L}+`, ` ?\p{N}+` and ` ?[^\s\p{L}\p{N}]+` together: an optional U+0020, then
            // the longest run of one non-space class.
            const std::size_t runStart =
                chars[i].codePoint == U' ' && i + 1 < n && clsAt(i + 1) != Gpt2CharClass::Space
                ? i + 1
                : i;
            if (clsAt(runStart) != Gpt2CharClass::Space) {
                end = runStart;
                while (end < n && clsAt(end) == clsAt(runStart))
                    ++end;
            } else {
                // `\s+(?!\S)` gives back the last space before a non-space so that it can lead
                // the next word; a lone space before a non-space falls to `\s+`.
                std::size_t spaceEnd = i;
                while (spaceEnd < n && clsAt(spaceEnd) == Gpt2CharClass::Space)
                    ++spaceEnd;
                end = spaceEnd == n || spaceEnd - i == 1 ? spaceEnd : spaceEnd - 1;
            }
        }
        const std::size_t endByte = end < n ? chars[end].begin : text.size();
        words.push_back(text.substr(chars[i].begin, endByte - chars[i].begin));
        i = end;
    }
    return words;
}

} // namespace attnviz::io
