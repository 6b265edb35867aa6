#include "lesson/valid_lengths.h"

#include <algorithm>
#include <cctype>

namespace attnviz::lesson {
namespace {

using Rows = std::vector<std::vector<long long>>;

// A length far beyond any sentence the playground accepts; keeps the arithmetic in range.
constexpr long long kLargestLength = 1'000'000;

// "[[1, 3], [2, 4]]" and "1 3; 2 4" both become two rows; "[3, 2]" and "3, 2" one row.
std::variant<Rows, std::string> readRows(const std::string& text)
{
    const bool nested = text.find("[[") != std::string::npos;
    Rows rows(1);
    std::string number;
    int depth = 0;
    const auto endNumber = [&]() -> std::string {
        if (number.empty())
            return {};
        if (number.size() > 7)
            return "The valid length " + number.substr(0, 12) + (number.size() > 12 ? "…" : "") +
                " is far too large.";
        rows.back().push_back(std::stoll(number));
        number.clear();
        return {};
    };
    for (const char c : text) {
        std::string problem;
        if (std::isdigit(static_cast<unsigned char>(c)))
            number += c;
        else if (c == ',' || c == ' ' || c == '\t')
            problem = endNumber();
        else if (c == ';' || (nested && c == ']' && depth == 2)) {
            problem = endNumber();
            if (problem.empty() && !rows.back().empty())
                rows.emplace_back();
            if (c == ']')
                --depth;
        } else if (c == '[') {
            problem = endNumber();
            if (++depth > (nested ? 2 : 1))
                problem = "Valid lengths nest at most two levels of brackets, as in [[1, 3], [2, "
                          "4]].";
        } else if (c == ']') {
            problem = endNumber();
            if (--depth < 0)
                problem = "A ] in the valid lengths has no [ to close.";
        } else if (c == '-')
            problem = "A valid length cannot be negative.";
        else
            problem = "Valid lengths are whole numbers separated by commas, e.g. 3, 2.";
        if (!problem.empty())
            return problem;
    }
    if (const std::string problem = endNumber(); !problem.empty())
        return problem;
    if (depth != 0)
        return std::string("A [ in the valid lengths is never closed.");
    if (rows.back().empty())
        rows.pop_back();
    if (rows.empty())
        return std::string("Type one valid length per sentence, e.g. 3, 2.");
    if (nested || text.find(';') != std::string::npos || rows.size() > 1)
        return rows;
    // A single row is one length per batch item: turn it into a column.
    Rows column;
    for (const long long n : rows.front())
        column.push_back({n});
    return column;
}

std::string itemName(std::size_t b)
{
    return "batch item " + std::to_string(b);
}

} // namespace

std::variant<engine::AttentionMask::ValidLengths, std::string> parseValidLengths(
    const std::string& text, const std::vector<int>& itemKeys, std::size_t queries)
{
    const auto read = readRows(text);
    if (const auto* problem = std::get_if<std::string>(&read))
        return *problem;
    const Rows& rows = std::get<Rows>(read);
    const bool perQuery =
        std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.size() != 1; });
    if (rows.size() != itemKeys.size())
        return "The valid lengths give " + std::to_string(rows.size()) +
            (rows.size() == 1 ? " item" : " items") + " but there " +
            (itemKeys.size() == 1 ? "is 1 sentence"
                                  : "are " + std::to_string(itemKeys.size()) + " sentences") +
            ": write one " + (perQuery ? "row" : "length") + " per sentence.";
    engine::AttentionMask::ValidLengths out;
    out.perQuery = perQuery;
    for (std::size_t b = 0; b < rows.size(); ++b) {
        if (perQuery && rows[b].size() != queries)
            return "The row of " + itemName(b) + " in the valid lengths has " +
                std::to_string(rows[b].size()) +
                " lengths; per-query lengths need one per query (" + std::to_string(queries) + ").";
        for (const long long n : rows[b]) {
            if (n > itemKeys[b] || n > kLargestLength)
                return "A valid length of " + std::to_string(n) + " is more than the " +
                    std::to_string(itemKeys[b]) + " keys of " + itemName(b) +
                    ": a length counts real keys, from 0 up to the sentence's length.";
            out.lengths.push_back(n);
        }
    }
    return out;
}

} // namespace attnviz::lesson
