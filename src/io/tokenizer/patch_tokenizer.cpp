#include "io/tokenizer/patch_tokenizer.h"

#include "engine/input_error.h"

#include <charconv>

namespace attnviz::io {

PatchTokenizer::PatchTokenizer(int patchRows, int patchColumns, bool distillationToken)
    : m_rows(patchRows)
    , m_columns(patchColumns)
    , m_extra(distillationToken ? 2 : 1)
{
}

std::vector<int> PatchTokenizer::encode(std::string_view) const
{
    throw engine::InputError("A Vision Transformer reads a picture, not text; give it an image.");
}

std::string PatchTokenizer::decode(const std::vector<int>& ids) const
{
    std::string out;
    for (const int id : ids)
        out += (out.empty() ? "" : " ") + token(id);
    return out;
}

std::string PatchTokenizer::token(int id) const
{
    if (id == 0)
        return "[CLS]";
    if (id == 1 && m_extra == 2)
        return "[DIST]";
    const int patch = id - m_extra;
    if (patch < 0 || patch >= m_rows * m_columns)
        return "";
    return std::to_string(patch / m_columns) + "," + std::to_string(patch % m_columns);
}

std::optional<int> PatchTokenizer::id(std::string_view token) const
{
    if (token == "[CLS]")
        return 0;
    if (token == "[DIST]" && m_extra == 2)
        return 1;
    const auto comma = token.find(',');
    if (comma == std::string_view::npos)
        return std::nullopt;
    int row = -1, column = -1;
    const auto parse = [](std::string_view s, int& into) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), into);
        return ec == std::errc() && end == s.data() + s.size();
    };
    if (!parse(token.substr(0, comma), row) || !parse(token.substr(comma + 1), column) || row < 0 ||
        row >= m_rows || column < 0 || column >= m_columns)
        return std::nullopt;
    return m_extra + row * m_columns + column;
}

} // namespace attnviz::io
