#include "io/labelled_matrix.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnviz::io {
namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// A decimal number such as -0.5, +3 or 1e-7, which a spreadsheet reads as that number.
bool isNumber(std::string_view text)
{
    if (!text.empty() && (text.front() == '-' || text.front() == '+'))
        text.remove_prefix(1);
    if (text.empty() ||
        !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.'))
        return false;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

// A label from the input (a token, a name) as one CSV cell that needs no quoting, so that both
// spreadsheets and numpy.genfromtxt (which knows no quotes and takes # for a comment) read the
// file: a comma, a quote, a number sign, a backslash-free control character and blanks at the
// ends are written \xNN, as the token spelling writes bytes it cannot show. A cell a
// spreadsheet would run as a formula — beginning with =, +, -, @ unless it is a plain number —
// starts with a quote mark (OWASP's advice), which spreadsheets show as text.
std::string csvField(const std::string& text)
{
    const bool formula = !text.empty() &&
        std::string_view("=+-@").find(text.front()) != std::string_view::npos && !isNumber(text);
    std::string out = formula ? "'" : "";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        const bool edge = (i == 0 || i + 1 == text.size()) && isBlank(text[i]);
        if (u < 0x20 || u == 0x7f || u == ',' || u == '"' || u == '#' || edge) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", u);
            out += hex;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string number(float v)
{
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    if (std::isnan(v))
        return "nan";
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, static_cast<double>(v),
                                         std::chars_format::general, 9);
    return ec == std::errc() ? std::string(buffer, end) : std::string("nan");
}

std::string label(const std::vector<std::string>& labels, int i)
{
    return i < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(i)]
                                               : std::to_string(i);
}

} // namespace

std::string csvBytes(const LabelledMatrix& m)
{
    std::string out = csvField(m.rowAxis + "\\" + m.columnAxis);
    for (int c = 0; c < m.cols; ++c)
        out += ',' + csvField(label(m.columnLabels, c));
    out += '\n';
    for (int r = 0; r < m.rows; ++r) {
        out += csvField(label(m.rowLabels, r));
        for (int c = 0; c < m.cols; ++c)
            out += ',' + number(m.value(r, c));
        out += '\n';
    }
    return out;
}

std::string labelsJson(const LabelledMatrix& m)
{
    const auto axis = [](const std::string& name, const std::vector<std::string>& labels,
                         int count) {
        nlohmann::ordered_json list = nlohmann::json::array();
        for (int i = 0; i < count; ++i)
            list.push_back(label(labels, i));
        return nlohmann::ordered_json{{"axis", name}, {"labels", std::move(list)}};
    };
    const nlohmann::ordered_json j{{"rows", axis(m.rowAxis, m.rowLabels, m.rows)},
                                   {"columns", axis(m.columnAxis, m.columnLabels, m.cols)}};
    // Invalid UTF-8 never reaches here (labels escape such bytes); replace rather than throw.
    return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string npyBytes(const LabelledMatrix& m)
{
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
        std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of
    // 64 and ended by a newline, as the format asks.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    const auto length = static_cast<std::uint16_t>(header.size());
    out += static_cast<char>(length & 0xff);
    out += static_cast<char>(length >> 8);
    out += header;
    const std::size_t start = out.size();
    const std::size_t count = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols);
    out.resize(start + count * 4);
    if (count) // x86: little-endian floats as they are in memory
        std::memcpy(out.data() + start, m.values, count * 4);
    return out;
}

} // namespace attnviz::io
