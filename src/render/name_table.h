#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::render {

// The tables of things a user names (export formats, colour maps, figure arrangements) are looked
// up and listed alike: rows with a lower-case `name`.

/// The row of that name, case-insensitively, or null.
template <typename Row> const Row* rowNamed(const std::vector<Row>& rows, std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const Row& row : rows)
        if (row.name == lower)
            return &row;
    return nullptr;
}

/// "a, b or c", for a sentence that says what was expected.
template <typename Row> std::string namesOf(const std::vector<Row>& rows)
{
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i)
        out += (i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ") + std::string(rows[i].name);
    return out;
}

} // namespace attnviz::render
