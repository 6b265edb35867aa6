#include "io/tokenizer/tokenizer.h"

#include "io/file_error.h"
#include "io/tokenizer/token_display.h"
#include "io/tokenizer/unicode.h"

#include <cstdio>

namespace attnviz::io {
namespace {

/// How many code points a tooltip lists for a group before "…".
constexpr std::size_t kListedCodePoints = 8;

std::string hexBytes(std::string_view bytes)
{
    std::string hex;
    for (const char b : bytes) {
        char digits[4];
        std::snprintf(digits, sizeof digits, "%s%02X", hex.empty() ? "" : " ",
                      static_cast<unsigned char>(b));
        hex += digits;
    }
    return hex;
}

std::string codePoints(std::string_view text)
{
    std::string listed;
    std::size_t count = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        pos += c.length;
        if (!c.valid)
            continue;
        if (++count > kListedCodePoints)
            return listed + " …";
        char number[12];
        std::snprintf(number, sizeof number, "%sU+%04X", listed.empty() ? "" : " ",
                      static_cast<unsigned>(c.codePoint));
        listed += number;
    }
    return listed;
}

std::vector<std::optional<std::string>> allPieceBytes(const Tokenizer& tokenizer,
                                                      const std::vector<int>& ids)
{
    std::vector<std::optional<std::string>> bytes;
    bytes.reserve(ids.size());
    for (const int id : ids)
        bytes.push_back(tokenizer.pieceBytes(id));
    return bytes;
}
} // namespace

std::vector<std::string> Tokenizer::tokens(const std::vector<int>& ids) const
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const int id : ids)
        out.push_back(token(id));
    return out;
}

std::vector<std::string> Tokenizer::displayTokens(const std::vector<int>& ids) const
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const int id : ids)
        out.push_back(displayToken(id));
    for (const BytePieceGroup& group : groupBytePieces(allPieceBytes(*this, ids))) {
        const std::string shown = displayBytes(group.bytes);
        for (std::size_t k = 0; k < group.count; ++k)
            out[group.first + k] = shown + partMark(k, group.count);
    }
    return out;
}

std::vector<TokenDetail> Tokenizer::tokenDetails(const std::vector<int>& ids) const
{
    const std::vector<std::optional<std::string>> bytes = allPieceBytes(*this, ids);
    std::vector<TokenDetail> details;
    details.reserve(ids.size());
    for (std::size_t t = 0; t < ids.size(); ++t) {
        TokenDetail d;
        d.spelling = printable(token(ids[t]));
        d.id = ids[t];
        if (bytes[t] && !isValidUtf8(*bytes[t]))
            d.bytes = hexBytes(*bytes[t]);
        details.push_back(std::move(d));
    }
    for (const BytePieceGroup& group : groupBytePieces(bytes))
        for (std::size_t k = 0; k < group.count; ++k) {
            TokenDetail& d = details[group.first + k];
            d.bytes = hexBytes(*bytes[group.first + k]);
            d.part = static_cast<int>(k + 1);
            d.parts = static_cast<int>(group.count);
            d.whole = printable(group.bytes);
            d.codePoints = codePoints(group.bytes);
        }
    return details;
}

std::string describe(const TokenDetail& d)
{
    std::string line = "\"" + d.spelling + "\" · id " + std::to_string(d.id);
    if (!d.bytes.empty())
        line += " · bytes " + d.bytes;
    if (d.parts > 0)
        line += " · part " + std::to_string(d.part) + " of " + std::to_string(d.parts) + " of \"" +
            d.whole + "\" (" + d.codePoints + ")";
    return line;
}

} // namespace attnviz::io
