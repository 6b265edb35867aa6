#include "io/checkpoint/config_reader.h"

#include "io/checkpoint/model_error.h"

#include <cmath>
#include <cstdio>

namespace attnviz::io {
namespace {

// A bound as a person writes it: 1e-30, not 1.0000000000000001e-30.
std::string shortest(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace

ConfigReader::ConfigReader(const JsonValue& json, std::string file)
    : m_json(json)
    , m_file(std::move(file))
{
    if (!json.isObject())
        fail("it must hold a JSON object, found " + json.describe() + ".");
}

void ConfigReader::fail(const std::string& sentence) const
{
    throw ModelError(m_file + ": " + sentence);
}

const JsonValue& ConfigReader::required(const char* name) const
{
    const JsonValue* v = m_json.find(name);
    if (!v)
        fail(std::string("there is no \"") + name + "\" field.");
    return *v;
}

int ConfigReader::integer(const char* name, int low, int high) const
{
    const JsonValue& v = required(name);
    if (!v.isInteger() || v.asInteger() < low || v.asInteger() > high)
        fail(std::string("\"") + name + "\" is " + v.describe() + "; expected an integer from " +
             std::to_string(low) + " to " + std::to_string(high) + ".");
    return static_cast<int>(v.asInteger());
}

int ConfigReader::integer(const char* name, int low, int high, int fallback) const
{
    return has(name) ? integer(name, low, high) : fallback;
}

bool ConfigReader::given(const char* name) const
{
    const JsonValue* v = m_json.find(name);
    return v && !v->isNull();
}

std::optional<int> ConfigReader::optionalInteger(const char* name, int low, int high) const
{
    if (!given(name))
        return std::nullopt;
    return integer(name, low, high);
}

int ConfigReader::integerOf(std::initializer_list<const char*> names, int low, int high) const
{
    for (const char* name : names)
        if (has(name))
            return integer(name, low, high);
    fail("there is no " + choiceList(names) + " field.");
}

std::string ConfigReader::choiceList(std::initializer_list<const char*> names) const
{
    std::string out;
    for (const char* n : names)
        out += (out.empty() ? "\"" : " or \"") + std::string(n) + "\"";
    return out;
}

float ConfigReader::number(const char* name, double low, double high, float fallback) const
{
    const JsonValue* v = m_json.find(name);
    if (!v)
        return fallback;
    // Checked as the float it becomes: 1e39 is a finite double but +Inf as a float.
    const float f = v->isNumber() ? static_cast<float>(v->asNumber()) : 0.0f;
    if (!v->isNumber() || !std::isfinite(f) || f < low || f > high)
        fail(std::string("\"") + name + "\" is " + v->describe() + "; expected a number from " +
             shortest(low) + " to " + shortest(high) + ".");
    return f;
}

double ConfigReader::real(const char* name, double low, double high, double fallback) const
{
    const JsonValue* v = m_json.find(name);
    if (!v || v->isNull())
        return fallback;
    if (!v->isNumber() || !std::isfinite(v->asNumber()) || v->asNumber() < low ||
        v->asNumber() > high)
        fail(std::string("\"") + name + "\" is " + v->describe() + "; expected a number from " +
             shortest(low) + " to " + shortest(high) + ".");
    return v->asNumber();
}

bool ConfigReader::boolean(const char* name, bool fallback) const
{
    const JsonValue* v = m_json.find(name);
    if (!v)
        return fallback;
    if (!v->isBool())
        fail(std::string("\"") + name + "\" must be true or false, found " + v->describe() + ".");
    return v->asBool();
}

std::string ConfigReader::string(const char* name, const std::string& fallback) const
{
    const JsonValue* v = m_json.find(name);
    if (!v || v->isNull())
        return fallback;
    if (!v->isString())
        fail(std::string("\"") + name + "\" must be a string, found " + v->describe() + ".");
    return v->asString();
}

std::optional<std::string> ConfigReader::optionalString(const char* name) const
{
    const JsonValue* v = m_json.find(name);
    if (!v || v->isNull())
        return std::nullopt;
    return string(name, {});
}

bool hasModelType(const JsonValue& config, std::string_view type)
{
    const JsonValue* value = config.isObject() ? config.find("model_type") : nullptr;
    return value && value->isString() && value->asString() == type;
}

} // namespace attnviz::io
