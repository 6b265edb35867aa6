// io::parseJson on any bytes. What it accepts is written out again (strings escaped, numbers with
// 17 significant digits) and must read back as an equal value: a check that escapes, nesting and
// numbers are read consistently, beyond the absence of crashes.
#include "fuzz_support.h"

#include <cmath>

namespace attnviz::fuzz {
namespace {

using io::JsonValue;

void write(const JsonValue& v, std::string& out)
{
    if (v.isNull()) {
        out += "null";
    } else if (v.isBool()) {
        out += v.asBool() ? "true" : "false";
    } else if (v.isNumber()) {
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", v.asNumber());
        out += text;
    } else if (v.isString()) {
        out += '"';
        for (const char c : v.asString()) {
            if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char escape[8];
                std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(c));
                out += escape;
            } else {
                out += c;
            }
        }
        out += '"';
    } else if (v.isArray()) {
        out += '[';
        for (std::size_t i = 0; i < v.asArray().size(); ++i) {
            out += i ? "," : "";
            write(v.asArray()[i], out);
        }
        out += ']';
    } else {
        out += '{';
        bool first = true;
        for (const auto& [key, member] : v.asObject()) {
            out += first ? "" : ",";
            first = false;
            write(JsonValue(key), out);
            out += ':';
            write(member, out);
        }
        out += '}';
    }
}

bool same(const JsonValue& a, const JsonValue& b)
{
    if (a.isNull() || a.isBool())
        return a.isNull() ? b.isNull() : b.isBool() && a.asBool() == b.asBool();
    if (a.isNumber())
        return b.isNumber() &&
            (a.asNumber() == b.asNumber() ||
             (std::isnan(a.asNumber()) && std::isnan(b.asNumber())));
    if (a.isString())
        return b.isString() && a.asString() == b.asString();
    if (a.isArray()) {
        if (!b.isArray() || a.asArray().size() != b.asArray().size())
            return false;
        for (std::size_t i = 0; i < a.asArray().size(); ++i)
            if (!same(a.asArray()[i], b.asArray()[i]))
                return false;
        return true;
    }
    if (!b.isObject() || a.asObject().size() != b.asObject().size())
        return false;
    for (std::size_t i = 0; i < a.asObject().size(); ++i)
        if (a.asObject()[i].first != b.asObject()[i].first ||
            !same(a.asObject()[i].second, b.asObject()[i].second))
            return false;
    return true;
}

// What every accessor a reader uses gives for an accepted value; describe() must not throw.
void touch(const JsonValue& v)
{
    (void)v.describe();
    if (v.isNumber() && v.isInteger())
        (void)v.asInteger();
    if (v.isArray())
        for (const JsonValue& item : v.asArray())
            touch(item);
    if (v.isObject())
        for (const auto& [key, member] : v.asObject()) {
            require(v.find(key) != nullptr, "find() misses a member of its own object");
            touch(member);
        }
}

} // namespace

void fuzzJson(std::string_view input)
{
    io::JsonValue value;
    if (!acceptingDocumentedRejections([&] { value = io::parseJson(input); }))
        return;
    touch(value);
    std::string written;
    write(value, written);
    io::JsonValue again;
    try {
        again = io::parseJson(written);
    } catch (const io::JsonError& e) {
        throw Finding(std::string("an accepted document, written out again, is refused: ") +
                      e.what());
    }
    require(same(value, again), "an accepted document reads back as a different value");
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzJson)
