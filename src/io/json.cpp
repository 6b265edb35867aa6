#include "io/json.h"

#include "io/file_error.h"
#include "io/tokenizer/unicode.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_set>

namespace attnviz::io {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
public:
    explicit Parser(std::string_view text)
        : m_text(text)
    {
    }

    JsonValue document()
    {
        JsonValue v = value(0);
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the end of the document");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw JsonError(what + " at byte " + std::to_string(m_pos));
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() &&
               (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' ||
                m_text[m_pos] == '\r'))
            ++m_pos;
    }

    bool consume(char c)
    {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    void expect(char c)
    {
        if (!consume(c))
            fail(std::string("expected '") + c + "'");
    }

    void literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            fail("unexpected character");
        m_pos += word.size();
    }

    JsonValue value(int depth)
    {
        if (depth > kMaxDepth)
            fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
        skipSpace();
        if (m_pos >= m_text.size())
            fail("unexpected end of text");
        switch (m_text[m_pos]) {
        case '{':
            return object(depth);
        case '[':
            return array(depth);
        case '"':
            return JsonValue(string());
        case 't':
            literal("true");
            return JsonValue(true);
        case 'f':
            literal("false");
            return JsonValue(false);
        case 'n':
            literal("null");
            return JsonValue();
        default:
            return number();
        }
    }

    JsonValue object(int depth)
    {
        ++m_pos;
        JsonValue::Object members;
        std::unordered_set<std::string> seen;
        if (consume('}'))
            return JsonValue(std::move(members));
        do {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                fail("expected a member name in quotes");
            std::string key = string();
            // A set, not a scan of the members: a header with 300 000 keys must not take minutes.
            if (!seen.insert(key).second)
                fail("duplicate member \"" + printable(key) + "\"");
            expect(':');
            members.emplace_back(std::move(key), value(depth + 1));
        } while (consume(','));
        expect('}');
        return JsonValue(std::move(members));
    }

    JsonValue array(int depth)
    {
        ++m_pos;
        JsonValue::Array items;
        if (consume(']'))
            return JsonValue(std::move(items));
        do {
            items.push_back(value(depth + 1));
        } while (consume(','));
        expect(']');
        return JsonValue(std::move(items));
    }

    unsigned hex4()
    {
        if (m_pos + 4 > m_text.size())
            fail("truncated \\u escape");
        unsigned code = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = m_text[m_pos++];
            code <<= 4;
            if (c >= '0' && c <= '9')
                code |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                code |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                code |= static_cast<unsigned>(c - 'A' + 10);
            else
                fail("bad hex digit in \\u escape");
        }
        return code;
    }

    std::string string()
    {
        ++m_pos; // opening quote
        std::string out;
        while (true) {
            if (m_pos >= m_text.size())
                fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character inside a string");
            if (static_cast<unsigned char>(c) >= 0x80) {
                // JSON text is UTF-8 (RFC 8259), and Hugging Face's readers refuse anything else:
                // a stray byte kept here would reach labels and CSV files as invalid text.
                const Utf8Char ch = decodeUtf8(m_text, m_pos - 1);
                if (!ch.valid) {
                    --m_pos;
                    fail("invalid UTF-8 inside a string");
                }
                out.append(m_text.substr(m_pos - 1, ch.length));
                m_pos += ch.length - 1;
                continue;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                fail("unterminated escape");
            const char e = m_text[m_pos++];
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (m_text.substr(m_pos, 2) != "\\u")
                        fail("unpaired surrogate in \\u escape");
                    m_pos += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail("unpaired surrogate in \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    // A low surrogate alone would be written out as invalid UTF-8.
                    fail("unpaired surrogate in \\u escape");
                }
                appendUtf8(out, static_cast<char32_t>(cp));
                break;
            }
            default: {
                // The whole character after the backslash, escaped: a raw byte of it could be an
                // ESC, a lone 0x9b or the start of a bidirectional override.
                const Utf8Char after = decodeUtf8(m_text, m_pos - 1);
                fail("unknown escape \\" + printable(m_text.substr(m_pos - 1, after.length)));
            }
            }
        }
    }

    JsonValue number()
    {
        const std::size_t start = m_pos;
        bool integral = true;
        if (m_pos < m_text.size() && m_text[m_pos] == '-')
            ++m_pos;
        const auto digits = [&] {
            const std::size_t from = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
                ++m_pos;
            return m_pos - from;
        };
        const std::size_t intStart = m_pos;
        if (digits() == 0)
            fail("unexpected character");
        if (m_text[intStart] == '0' && m_pos - intStart > 1)
            fail("number with a leading zero");
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            integral = false;
            if (digits() == 0)
                fail("expected digits after the decimal point");
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            integral = false;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (digits() == 0)
                fail("expected digits in the exponent");
        }
        double value = 0;
        const char* first = m_text.data() + start;
        const auto [end, ec] = std::from_chars(first, m_text.data() + m_pos, value);
        if (ec != std::errc() || end != m_text.data() + m_pos)
            fail("number out of range");
        // Keep the number as written, so a message can quote `4.0` rather than `4`.
        return JsonValue(value, integral, std::string(m_text.substr(start, m_pos - start)));
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

} // namespace

bool JsonValue::isInteger() const
{
    if (!isNumber())
        return false;
    const Number& n = std::get<Number>(m_value);
    return n.integral && std::abs(n.value) <= 9007199254740992.0; // 2^53: exact in a double
}

std::int64_t JsonValue::asInteger() const
{
    return static_cast<std::int64_t>(asNumber());
}

const JsonValue* JsonValue::find(std::string_view key) const
{
    if (!isObject())
        return nullptr;
    for (const auto& [name, value] : asObject())
        if (name == key)
            return &value;
    return nullptr;
}

std::string JsonValue::describe() const
{
    constexpr std::size_t kMax = 40;
    std::string s;
    if (isNull()) {
        s = "null";
    } else if (isBool()) {
        s = asBool() ? "true" : "false";
    } else if (isNumber()) {
        s = std::get<Number>(m_value).text;
        if (s.empty()) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.17g", asNumber());
            s = buffer;
        }
    } else if (isString()) {
        // printable escapes and cuts between characters; the byte cut below is for numbers'
        // digits and would split a character in two.
        return "\"" + printable(asString(), kMax) + "\"";
    } else if (isArray()) {
        s = "an array";
    } else {
        s = "an object";
    }
    if (s.size() > kMax)
        s = s.substr(0, kMax) + "…";
    return s;
}

JsonValue parseJson(std::string_view text)
{
    return Parser(text).document();
}

} // namespace attnviz::io
