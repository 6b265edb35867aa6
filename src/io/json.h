#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::io {

/// A JSON document that is not well-formed; the message says what was found and where.
class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Asked before a document is built, with the bytes parsing it takes at its peak (its text
/// included) and what is being read ("tokenizer.json"); throws to refuse.
using JsonMemoryCheck = std::function<void(std::uint64_t bytes, const std::string& what)>;

/// A parsed JSON value, as AttnViz reads safetensors headers, configurations, vocabularies and
/// lesson files: objects keep their members in file order and a duplicate member is an error.
/// (Writing JSON goes through nlohmann::json; this reader stays because it reports errors with
/// byte offsets and refuses what the formats forbid.) A value takes 16 bytes, its containers are
/// sized exactly, and a number keeps no text: a document of numbers costs about eight bytes of
/// memory per byte of text, where a value holding its variant took fifty.
class JsonValue {
public:
    using Array = std::vector<JsonValue>;
    using Object = std::vector<std::pair<std::string, JsonValue>>;

    JsonValue() = default;
    explicit JsonValue(bool b)
        : m_kind(Kind::Bool)
        , m_flag(b)
    {
    }
    /// `integral`: the number was written without fraction or exponent.
    JsonValue(double number, bool integral)
        : m_kind(Kind::Number)
        , m_flag(integral)
        , m_number(number)
    {
    }
    explicit JsonValue(std::string s);
    explicit JsonValue(Array a);
    explicit JsonValue(Object o);
    JsonValue(const JsonValue& other);
    JsonValue(JsonValue&& other) noexcept;
    JsonValue& operator=(JsonValue other) noexcept;
    ~JsonValue();

    bool isNull() const { return m_kind == Kind::Null; }
    bool isBool() const { return m_kind == Kind::Bool; }
    bool isNumber() const { return m_kind == Kind::Number; }
    bool isString() const { return m_kind == Kind::String; }
    bool isArray() const { return m_kind == Kind::Array; }
    bool isObject() const { return m_kind == Kind::Object; }
    /// A number written without fraction or exponent that fits in 64 bits.
    bool isInteger() const;

    bool asBool() const { return checked(Kind::Bool).m_flag; }
    double asNumber() const { return checked(Kind::Number).m_number; }
    std::int64_t asInteger() const;
    const std::string& asString() const { return *checked(Kind::String).m_string; }
    const Array& asArray() const { return *checked(Kind::Array).m_array; }
    const Object& asObject() const { return *checked(Kind::Object).m_object; }

    /// The member named `key` of an object, or null when absent (or when this is no object).
    const JsonValue* find(std::string_view key) const;

    /// The value as it would be written in JSON, shortened for error messages (a number as its
    /// shortest exact spelling: `4.0`, `1e+20`).
    std::string describe() const;

private:
    enum class Kind : std::uint8_t { Null, Bool, Number, String, Array, Object };
    /// This value, or std::bad_variant_access when it is of another kind (as std::get threw).
    const JsonValue& checked(Kind kind) const;

    Kind m_kind = Kind::Null;
    bool m_flag = false; ///< a Bool's value; for a Number, written as an integer
    union {
        double m_number = 0;
        std::string* m_string;
        Array* m_array;
        Object* m_object;
    };
};

/// Parses a complete JSON text; throws JsonError naming the byte offset of the first problem.
/// Duplicate object keys are an error: a header that names a tensor twice is ambiguous. Before
/// building anything, one pass over the text counts what the document will hold, and the memory
/// that takes is put to the JsonMemoryScope of this thread, if any, as reading `what`; more than
/// 768 MiB is refused in any case (engine::InputError).
JsonValue parseJson(std::string_view text, std::string_view what = "a JSON document");

/// For as long as it lives, every parseJson on this thread first asks `check`: set where a model,
/// a case or an import is opened under the user's memory budget, so that every JSON file read
/// below it is counted without each reader passing the budget on. Scopes nest; the innermost
/// one is asked.
class JsonMemoryScope {
public:
    explicit JsonMemoryScope(JsonMemoryCheck check);
    ~JsonMemoryScope();
    JsonMemoryScope(const JsonMemoryScope&) = delete;
    JsonMemoryScope& operator=(const JsonMemoryScope&) = delete;

    /// The innermost scope's check, or null outside every scope.
    static const JsonMemoryCheck* current();

private:
    JsonMemoryCheck m_check;
    JsonMemoryScope* m_outer;
};

} // namespace attnviz::io
