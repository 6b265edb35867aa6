#pragma once

#include "io/json.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

namespace attnviz::io {

/// Whether a Hugging Face config.json says `"model_type": type`.
bool hasModelType(const JsonValue& config, std::string_view type);

/// Reads the fields of a config.json, each checked in the type it will be used in: an integer
/// field must be written as an integer within its range (`4.0` and `1e9` are refused), a float
/// must be finite as a float. Every refusal is a ModelError of one sentence naming the field.
class ConfigReader {
public:
    ConfigReader(const JsonValue& json, std::string file = "config.json");

    bool has(const char* name) const { return m_json.find(name) != nullptr; }
    /// Present and not null: Hugging Face writes `null` for "use the default".
    bool given(const char* name) const;
    int integer(const char* name, int low, int high) const;
    int integer(const char* name, int low, int high, int fallback) const;
    /// The first of several names that is present (Hugging Face configs have aliases: n_ctx).
    int integerOf(std::initializer_list<const char*> names, int low, int high) const;
    /// The integer `name`, or nothing when it is absent or null.
    std::optional<int> optionalInteger(const char* name, int low, int high) const;
    float number(const char* name, double low, double high, float fallback) const;
    /// A number kept as a double (rope_theta, rope_scaling's factors).
    double real(const char* name, double low, double high, double fallback) const;
    bool boolean(const char* name, bool fallback) const;
    std::string string(const char* name, const std::string& fallback) const;
    std::optional<std::string> optionalString(const char* name) const;
    template <typename Enum>
    Enum choice(const char* name, std::initializer_list<std::pair<const char*, Enum>> options,
                std::optional<Enum> fallback = std::nullopt) const;

    [[noreturn]] void fail(const std::string& sentence) const;

private:
    const JsonValue& required(const char* name) const;
    std::string choiceList(std::initializer_list<const char*> names) const;

    const JsonValue& m_json;
    std::string m_file;
};

template <typename Enum>
Enum ConfigReader::choice(const char* name,
                          std::initializer_list<std::pair<const char*, Enum>> options,
                          std::optional<Enum> fallback) const
{
    if (!has(name) && fallback)
        return *fallback;
    const std::string value = string(name, {});
    std::string expected;
    for (const auto& [text, e] : options) {
        if (value == text)
            return e;
        expected += (expected.empty() ? "" : ", ") + std::string(text);
    }
    fail(std::string("\"") + name + "\" is " + required(name).describe() + "; expected one of " +
         expected + ".");
}

} // namespace attnviz::io
