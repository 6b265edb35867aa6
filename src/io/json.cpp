#include "io/json.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "io/tokenizer/unicode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>
#include <numeric>
#include <optional>
#include <variant>

namespace attnviz::io {
namespace {

constexpr int kMaxDepth = 64;

// Whatever the memory budget: no real file comes near (Llama 3's 9 MB tokenizer.json takes
// 35 MiB), and without a limit set a hostile one would take what the machine has.
constexpr std::uint64_t kMaxParsingBytes = 768ull << 20;

// What the C library's allocator adds to each block, counted so that the estimate holds for
// documents of many small strings.
constexpr std::uint64_t kBlockOverhead = 16;
// std::string keeps up to 15 bytes inside itself; a longer one takes a block of its own.
std::uint64_t stringBlockBytes(std::size_t length)
{
    return length > 15 ? length + 1 + kBlockOverhead : 0;
}

// What one pass over the text finds before anything is built: the number of items of each
// container, in the order they open (so that each is allocated once, at its size), and the bytes
// the parse takes at its peak. It validates nothing; on a malformed text the parser stops at the
// first fault, before the counts it was given could be wrong about what it built.
struct Census {
    std::vector<std::uint32_t> sizes;
    std::uint64_t bytes = 0;
};

Census takeCensus(std::string_view text)
{
    struct Open {
        std::size_t index;
        bool object;
        bool empty = true;
        bool expectingKey = true;
        std::uint64_t commas = 0;
    };
    Census census;
    std::vector<Open> open;
    std::uint64_t largestObject = 0;
    const auto close = [&] {
        const Open& c = open.back();
        const std::uint64_t items = c.empty ? 0 : c.commas + 1;
        census.sizes[c.index] = static_cast<std::uint32_t>(std::min<std::uint64_t>(items, ~0u));
        census.bytes += sizeof(JsonValue::Array) + kBlockOverhead;
        if (items)
            census.bytes +=
                items * (c.object ? sizeof(JsonValue::Object::value_type) : sizeof(JsonValue)) +
                kBlockOverhead;
        if (c.object)
            largestObject = std::max(largestObject, items);
        open.pop_back();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        const bool keyExpected = !open.empty() && open.back().object && open.back().expectingKey;
        if (!open.empty() && c != ',' && c != ']' && c != '}') {
            open.back().empty = false;
            if (c != ':')
                open.back().expectingKey = false;
        }
        if (c == '"') {
            const std::size_t start = i + 1;
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\')
                    ++i;
            const std::size_t length = std::min(i, text.size()) - start;
            census.bytes += stringBlockBytes(length);
            if (!keyExpected)
                census.bytes += sizeof(std::string) + kBlockOverhead;
        } else if (c == '[' || c == '{') {
            // The parser refuses anything deeper, before it reaches what follows.
            if (open.size() > static_cast<std::size_t>(kMaxDepth))
                break;
            open.push_back({census.sizes.size(), c == '{'});
            census.sizes.push_back(0);
        } else if ((c == ']' || c == '}') && !open.empty()) {
            close();
        } else if (c == ',' && !open.empty()) {
            ++open.back().commas;
            open.back().expectingKey = true;
        }
    }
    // A text that ends inside containers: the parser builds their items before it finds out.
    while (!open.empty())
        close();
    // The text, the root, the counts, and the widest object's duplicate check (an index and a
    // position per member).
    census.bytes += text.size() + sizeof(JsonValue) + census.sizes.size() * sizeof(std::uint32_t) +
        largestObject * (sizeof(std::uint32_t) + sizeof(std::size_t));
    return census;
}

class Parser {
public:
    Parser(std::string_view text, std::vector<std::uint32_t> sizes)
        : m_text(text)
        , m_sizes(std::move(sizes))
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

    // Each container is allocated once, at the size the census counted; should the text end or
    // fail before that, the parse throws anyway.
    std::size_t nextSize() { return m_next < m_sizes.size() ? m_sizes[m_next++] : 0; }

    JsonValue object(int depth)
    {
        ++m_pos;
        JsonValue::Object members;
        members.reserve(nextSize());
        std::vector<std::size_t> keyEnds;
        if (consume('}'))
            return JsonValue(std::move(members));
        keyEnds.reserve(members.capacity());
        do {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                fail("expected a member name in quotes");
            std::string key = string();
            keyEnds.push_back(m_pos);
            expect(':');
            members.emplace_back(std::move(key), value(depth + 1));
        } while (consume(','));
        expect('}');
        failOnDuplicate(members, keyEnds);
        return JsonValue(std::move(members));
    }

    // Sorting the members' indices, not a set of their names: a header with 300 000 keys takes
    // neither minutes nor a copy of every name. The error names the first repeat in the file.
    void failOnDuplicate(const JsonValue::Object& members, const std::vector<std::size_t>& keyEnds)
    {
        if (members.size() < 2)
            return;
        std::vector<std::uint32_t> order(members.size());
        std::iota(order.begin(), order.end(), 0u);
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            const int c = members[a].first.compare(members[b].first);
            return c < 0 || (c == 0 && a < b);
        });
        std::optional<std::uint32_t> repeat;
        for (std::size_t k = 1; k < order.size(); ++k)
            if (members[order[k]].first == members[order[k - 1]].first &&
                (!repeat || order[k] < *repeat))
                repeat = order[k];
        if (!repeat)
            return;
        m_pos = keyEnds[*repeat];
        fail("duplicate member \"" + printable(members[*repeat].first) + "\"");
    }

    JsonValue array(int depth)
    {
        ++m_pos;
        JsonValue::Array items;
        items.reserve(nextSize());
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
        return JsonValue(value, integral);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::vector<std::uint32_t> m_sizes;
    std::size_t m_next = 0;
};

thread_local JsonMemoryScope* innermostScope = nullptr;

} // namespace

JsonValue::JsonValue(std::string s)
    : m_kind(Kind::String)
    , m_string(new std::string(std::move(s)))
{
}

JsonValue::JsonValue(Array a)
    : m_kind(Kind::Array)
    , m_array(new Array(std::move(a)))
{
}

JsonValue::JsonValue(Object o)
    : m_kind(Kind::Object)
    , m_object(new Object(std::move(o)))
{
}

JsonValue::JsonValue(const JsonValue& other)
    : m_kind(other.m_kind)
    , m_flag(other.m_flag)
{
    switch (m_kind) {
    case Kind::String:
        m_string = new std::string(*other.m_string);
        break;
    case Kind::Array:
        m_array = new Array(*other.m_array);
        break;
    case Kind::Object:
        m_object = new Object(*other.m_object);
        break;
    default:
        m_number = other.m_number;
    }
}

JsonValue::JsonValue(JsonValue&& other) noexcept
    : m_kind(other.m_kind)
    , m_flag(other.m_flag)
{
    switch (m_kind) {
    case Kind::String:
        m_string = other.m_string;
        break;
    case Kind::Array:
        m_array = other.m_array;
        break;
    case Kind::Object:
        m_object = other.m_object;
        break;
    default:
        m_number = other.m_number;
    }
    other.m_kind = Kind::Null;
    other.m_number = 0;
}

JsonValue& JsonValue::operator=(JsonValue other) noexcept
{
    this->~JsonValue();
    new (this) JsonValue(std::move(other));
    return *this;
}

JsonValue::~JsonValue()
{
    switch (m_kind) {
    case Kind::String:
        delete m_string;
        break;
    case Kind::Array:
        delete m_array;
        break;
    case Kind::Object:
        delete m_object;
        break;
    default:
        break;
    }
}

const JsonValue& JsonValue::checked(Kind kind) const
{
    if (m_kind != kind)
        throw std::bad_variant_access();
    return *this;
}

bool JsonValue::isInteger() const
{
    return isNumber() && m_flag && std::abs(m_number) <= 9007199254740992.0; // 2^53: exact
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
        // The shortest spelling that reads back as the same double; a number written with a
        // fraction keeps one, so that a message about `4.0` does not quote `4`.
        char buffer[32];
        // Beyond 2^53 plain digits would show ones the document did not write.
        // An integer is written out in digits up to 2^53; beyond, digits would show ones the
        // document did not write.
        const bool exact = std::abs(m_number) < 9007199254740992.0;
        const auto format = !exact ? std::chars_format::scientific
            : m_flag               ? std::chars_format::fixed
                                   : std::chars_format{};
        const auto end = format == std::chars_format{}
            ? std::to_chars(buffer, buffer + sizeof buffer, m_number).ptr
            : std::to_chars(buffer, buffer + sizeof buffer, m_number, format).ptr;
        s.assign(buffer, end);
        // The exponent as people write it: 1e39, 1e-5 (to_chars writes 1e+39, 1e-05).
        if (const std::size_t e = s.find('e'); e != std::string::npos) {
            std::size_t digits = e + 1;
            if (s[digits] == '+')
                s.erase(digits, 1);
            else if (s[digits] == '-')
                ++digits;
            while (digits + 1 < s.size() && s[digits] == '0')
                s.erase(digits, 1);
        } else if (!m_flag && s.find('.') == std::string::npos) {
            s += ".0";
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

JsonValue parseJson(std::string_view text, std::string_view what)
{
    Census census = takeCensus(text);
    if (census.bytes > kMaxParsingBytes)
        throw engine::InputError("Reading " + std::string(what) + " needs about " +
                                 std::to_string(census.bytes >> 20) +
                                 " MiB of memory; no JSON file AttnViz reads may take more than " +
                                 std::to_string(kMaxParsingBytes >> 20) + " MiB.");
    if (const JsonMemoryCheck* check = JsonMemoryScope::current())
        (*check)(census.bytes, std::string(what));
    return Parser(text, std::move(census.sizes)).document();
}

JsonMemoryScope::JsonMemoryScope(JsonMemoryCheck check)
    : m_check(std::move(check))
    , m_outer(innermostScope)
{
    innermostScope = this;
}

JsonMemoryScope::~JsonMemoryScope()
{
    innermostScope = m_outer;
}

const JsonMemoryCheck* JsonMemoryScope::current()
{
    return innermostScope ? &innermostScope->m_check : nullptr;
}

} // namespace attnviz::io
