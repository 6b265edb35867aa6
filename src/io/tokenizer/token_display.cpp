#include "io/tokenizer/token_display.h"

#include "io/tokenizer/unicode.h"

#include <cstdio>

namespace attnviz::io {

std::string displayBytes(std::string_view bytes)
{
    std::string shown;
    for (std::size_t pos = 0; pos < bytes.size();) {
        const Utf8Char c = decodeUtf8(bytes, pos);
        if (c.codePoint == U' ') {
            shown += "␣";
        } else if (c.codePoint == U'\n') {
            shown += "↵";
        } else if (c.codePoint == U'\t') {
            shown += "⇥";
        } else if (!c.valid || c.codePoint < 0x20 || (c.codePoint >= 0x7F && c.codePoint < 0xA0)) {
            for (std::size_t k = pos; k < pos + c.length; ++k) {
                char hex[5];
                std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(bytes[k]));
                shown += hex;
            }
        } else {
            shown.append(bytes, pos, c.length);
        }
        pos += c.length;
    }
    return shown;
}

std::vector<BytePieceGroup> groupBytePieces(const std::vector<std::optional<std::string>>& bytes)
{
    // joined[t]: token t and token t + 1 share a character
    std::vector<bool> joined(bytes.size(), false);
    for (std::size_t runStart = 0; runStart < bytes.size();) {
        if (!bytes[runStart]) {
            ++runStart;
            continue;
        }
        // a run of tokens with bytes: their bytes together, and the token each byte belongs to
        std::string text;
        std::vector<std::size_t> owner;
        std::size_t runEnd = runStart;
        for (; runEnd < bytes.size() && bytes[runEnd]; ++runEnd) {
            text += *bytes[runEnd];
            owner.resize(text.size(), runEnd);
        }
        for (std::size_t pos = 0; pos < text.size();) {
            const Utf8Char c = decodeUtf8(text, pos);
            if (c.valid)
                for (std::size_t t = owner[pos]; t < owner[pos + c.length - 1]; ++t)
                    joined[t] = true;
            pos += c.length;
        }
        runStart = runEnd;
    }

    std::vector<BytePieceGroup> groups;
    for (std::size_t t = 0; t < bytes.size(); ++t) {
        if (!joined[t])
            continue;
        BytePieceGroup group{t, 1, *bytes[t]};
        while (joined[t]) {
            ++t;
            ++group.count;
            group.bytes += *bytes[t];
        }
        groups.push_back(std::move(group));
    }
    return groups;
}

std::string partMark(std::size_t index, std::size_t count)
{
    return "·" + std::to_string(index + 1) + "/" + std::to_string(count);
}

} // namespace attnviz::io
