#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace attnviz::io {

/// A JSON document that is not well-formed; the message says what was found and where.
class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parsed JSON value, as AttnViz reads safetensors headers, configurations, vocabularies and
/// lesson files: objects keep their members in file order and a duplicate member is an error.
/// (Writing JSON goes through nlohmann::json; this reader stays because it reports errors with
/// byte offsets and refuses what the formats forbid.)
class JsonValue {
public:
    using Array = std::vector<JsonValue>;
    using Object = std::vector<std::pair<std::string, JsonValue>>;

    JsonValue() = default;
    explicit JsonValue(bool b)
        : m_value(b)
    {
    }
    explicit JsonValue(double number, bool integral, std::string text = {})
        : m_value(Number{number, integral, std::move(text)})
    {
    }
    explicit JsonValue(std::string s)
        : m_value(std::move(s))
    {
    }
    explicit JsonValue(Array a)
        : m_value(std::move(a))
    {
    }
    explicit JsonValue(Object o)
        : m_value(std::move(o))
    {
    }

    bool isNull() const { return std::holds_alternative<std::monostate>(m_value); }
    bool isBool() const { return std::holds_alternative<bool>(m_value); }
    bool isNumber() const { return std::holds_alternative<Number>(m_value); }
    bool isString() const { return std::holds_alternative<std::string>(m_value); }
    bool isArray() const { return std::holds_alternative<Array>(m_value); }
    bool isObject() const { return std::holds_alternative<Object>(m_value); }
    /// A number written without fraction or exponent that fits in 64 bits.
    bool isInteger() const;

    bool asBool() const { return std::get<bool>(m_value); }
    double asNumber() const { return std::get<Number>(m_value).value; }
    std::int64_t asInteger() const;
    const std::string& asString() const { return std::get<std::string>(m_value); }
    const Array& asArray() const { return std::get<Array>(m_value); }
    const Object& asObject() const { return std::get<Object>(m_value); }

    /// The member named `key` of an object, or null when absent (or when this is no object).
    const JsonValue* find(std::string_view key) const;

    /// The value as it would be written in JSON, shortened for error messages.
    std::string describe() const;

private:
    struct Number {
        double value;
        bool integral;
        std::string text; ///< as written in the document
    };
    std::variant<std::monostate, bool, Number, std::string, Array, Object> m_value;
};

/// Parses a complete JSON text; throws JsonError naming the byte offset of the first problem.
/// Duplicate object keys are an error: a header that names a tensor twice is ambiguous.
JsonValue parseJson(std::string_view text);

} // namespace attnviz::io
