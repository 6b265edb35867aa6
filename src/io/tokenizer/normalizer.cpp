#include "io/tokenizer/normalizer.h"

#include "engine/input_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

#include <utf8proc.h>

#include <chrono>
#include <cstdlib>

namespace attnviz::io {
namespace {

std::string unicodeForm(std::string_view utf8, int options)
{
    utf8proc_uint8_t* mapped = nullptr;
    const utf8proc_ssize_t length =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(utf8.data()),
                     static_cast<utf8proc_ssize_t>(utf8.size()), &mapped,
                     static_cast<utf8proc_option_t>(options));
    if (length < 0) {
        std::free(mapped);
        throw engine::InputError(std::string("The text could not be normalised: ") +
                                 utf8proc_errmsg(length) + ".");
    }
    std::string result(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length));
    std::free(mapped);
    return result;
}

/// A member that must be a string; `what` names the step for the message.
const std::string& stringMember(const JsonValue& step, std::string_view key, std::string_view what)
{
    const JsonValue* value = step.find(key);
    if (!value || !value->isString() || !isValidUtf8(value->asString()))
        throw FormatError("tokenizer.json's " + std::string(what) + " normalizer has " +
                          std::string(key) + " " + (value ? value->describe() : "missing") +
                          "; expected a string of UTF-8 text");
    return value->asString();
}

} // namespace

Normalizer Normalizer::fromJson(const JsonValue* normalizer)
{
    Normalizer result;
    if (normalizer && !normalizer->isNull())
        result.add(*normalizer);
    return result;
}

void Normalizer::add(const JsonValue& normalizer)
{
    const std::string type = stepTypeOf(normalizer);
    constexpr int stable = UTF8PROC_STABLE;
    if (type == "NFC") {
        m_steps.push_back({Step::Kind::UnicodeForm, stable | UTF8PROC_COMPOSE});
    } else if (type == "NFD") {
        m_steps.push_back({Step::Kind::UnicodeForm, stable | UTF8PROC_DECOMPOSE});
    } else if (type == "NFKC") {
        m_steps.push_back({Step::Kind::UnicodeForm, stable | UTF8PROC_COMPOSE | UTF8PROC_COMPAT});
    } else if (type == "NFKD") {
        m_steps.push_back({Step::Kind::UnicodeForm, stable | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT});
    } else if (type == "Prepend") {
        m_steps.push_back({Step::Kind::Prepend, 0, stringMember(normalizer, "prepend", type)});
    } else if (type == "Replace") {
        const JsonValue* pattern = normalizer.find("pattern");
        const std::string& content = stringMember(normalizer, "content", type);
        const JsonValue* literal = pattern ? pattern->find("String") : nullptr;
        const JsonValue* regex = pattern ? pattern->find("Regex") : nullptr;
        if (literal && literal->isString() && !literal->asString().empty() &&
            isValidUtf8(literal->asString()))
            m_steps.push_back({Step::Kind::ReplaceString, 0, literal->asString(), content});
        else if (regex && regex->isString())
            m_steps.push_back({Step::Kind::ReplaceRegex,
                               0,
                               {},
                               content,
                               std::make_shared<const OnigurumaRegex>(
                                   regex->asString(), "tokenizer.json's Replace pattern")});
        else
            throw FormatError("tokenizer.json's Replace normalizer has the pattern " +
                              (pattern ? pattern->describe() : std::string("missing")) +
                              "; expected {\"String\": \"…\"} (not empty) or {\"Regex\": \"…\"}");
    } else if (type == "Sequence") {
        const JsonValue* steps = normalizer.find("normalizers");
        if (!steps || !steps->isArray())
            throw FormatError("tokenizer.json's Sequence normalizer has no \"normalizers\" "
                              "array; expected the list of its steps");
        for (const JsonValue& step : steps->asArray())
            add(step);
    } else {
        throw FormatError("tokenizer.json has a " + type +
                          " normalizer; AttnViz reads NFC, NFD, NFKC, NFKD, Prepend, Replace "
                          "and Sequence of these, or none");
    }
}

std::string Normalizer::apply(std::string_view utf8,
                              std::chrono::steady_clock::time_point deadline) const
{
    std::string text(utf8);
    for (const Step& step : m_steps) {
        switch (step.kind) {
        case Step::Kind::UnicodeForm:
            text = unicodeForm(text, step.utf8procOptions);
            break;
        case Step::Kind::Prepend:
            if (!text.empty()) // Hugging Face prepends to non-empty text only
                text.insert(0, step.pattern);
            break;
        case Step::Kind::ReplaceString: {
            std::string replaced;
            std::size_t from = 0;
            for (std::size_t at; (at = text.find(step.pattern, from)) != std::string::npos;
                 from = at + step.pattern.size())
                replaced.append(text, from, at - from).append(step.content);
            text = replaced.append(text, from);
            break;
        }
        case Step::Kind::ReplaceRegex: {
            std::string replaced;
            std::size_t from = 0;
            for (const auto& [start, stop] : step.regex->findAll(text, deadline)) {
                replaced.append(text, from, start - from).append(step.content);
                from = stop;
            }
            text = replaced.append(text, from);
            break;
        }
        }
    }
    return text;
}

} // namespace attnviz::io
