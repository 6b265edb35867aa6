#include "io/tokenizer/decoder.h"

#include "io/safetensors.h"
#include "io/tokenizer/byte_alphabet.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"
#include "io/tokenizer/utf8.h"

#include <optional>

namespace attnviz::io {
namespace {

/// The largest Strip count read: more than any token has characters.
constexpr std::int64_t kMaxStrip = 1 << 20;

const std::string& stringMember(const JsonValue& step, std::string_view key, std::string_view type)
{
    const JsonValue* value = step.find(key);
    if (!value || !value->isString())
        throw FormatError("tokenizer.json's " + std::string(type) + " decoder has " +
                          std::string(key) + " " + (value ? value->describe() : "missing") +
                          "; expected a string");
    return value->asString();
}

std::size_t countMember(const JsonValue& step, std::string_view key)
{
    const JsonValue* value = step.find(key);
    if (!value || !value->isInteger() || value->asInteger() < 0 || value->asInteger() > kMaxStrip)
        throw FormatError("tokenizer.json's Strip decoder has " + std::string(key) + " " +
                          (value ? value->describe() : "missing") +
                          "; expected a whole number from 0");
    return static_cast<std::size_t>(value->asInteger());
}

/// The byte of a "<0xXX>" token, as Hugging Face's ByteFallback decoder reads it.
std::optional<char> fallbackByte(const std::string& token)
{
    if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>')
        return std::nullopt;
    int value = 0;
    for (const char digit : token.substr(3, 2)) {
        const int d = digit >= '0' && digit <= '9' ? digit - '0'
            : digit >= 'A' && digit <= 'F'         ? digit - 'A' + 10
            : digit >= 'a' && digit <= 'f'         ? digit - 'a' + 10
                                                   : -1;
        if (d < 0)
            return std::nullopt;
        value = value * 16 + d;
    }
    return static_cast<char>(value);
}

std::string replaceAll(const std::string& text, const std::string& from, const std::string& to)
{
    std::string replaced;
    std::size_t start = 0;
    for (std::size_t at; (at = text.find(from, start)) != std::string::npos;
         start = at + from.size())
        replaced.append(text, start, at - start).append(to);
    return replaced.append(text, start);
}

/// Strip: up to `start` leading and `stop` trailing characters equal to `content`.
std::string strip(const std::string& token, const std::string& content, std::size_t start,
                  std::size_t stop)
{
    std::size_t first = 0, last = token.size();
    for (std::size_t k = 0;
         k < start && token.compare(first, content.size(), content) == 0 && first < last; ++k)
        first += content.size();
    for (std::size_t k = 0; k < stop && last - first >= content.size() &&
         token.compare(last - content.size(), content.size(), content) == 0;
         ++k)
        last -= content.size();
    return token.substr(first, last - first);
}

} // namespace

Decoder Decoder::fromJson(const JsonValue* decoder)
{
    Decoder result;
    if (decoder && !decoder->isNull()) {
        result.m_none = false;
        result.add(*decoder);
    }
    return result;
}

void Decoder::add(const JsonValue& decoder)
{
    const std::string type = stepTypeOf(decoder);
    if (type == "ByteLevel") {
        m_steps.push_back({Step::Kind::ByteLevel});
    } else if (type == "Metaspace") {
        Step step{Step::Kind::Metaspace, stringMember(decoder, "replacement", type)};
        if (countUtf8Characters(step.from) != 1)
            throw FormatError("tokenizer.json's Metaspace decoder has the replacement \"" +
                              printable(step.from) + "\"; expected one character such as \"▁\"");
        const JsonValue* scheme = decoder.find("prepend_scheme");
        const JsonValue* addPrefix = decoder.find("add_prefix_space");
        if (scheme && scheme->isString())
            step.dropFirstReplacement = scheme->asString() != "never";
        else if (addPrefix && addPrefix->isBool())
            step.dropFirstReplacement = addPrefix->asBool();
        m_steps.push_back(std::move(step));
    } else if (type == "Replace") {
        const JsonValue* pattern = decoder.find("pattern");
        const JsonValue* literal = pattern ? pattern->find("String") : nullptr;
        if (!literal || !literal->isString() || literal->asString().empty())
            throw FormatError("tokenizer.json's Replace decoder has the pattern " +
                              (pattern ? pattern->describe() : std::string("missing")) +
                              "; expected {\"String\": \"…\"}, not empty");
        m_steps.push_back(
            {Step::Kind::Replace, literal->asString(), stringMember(decoder, "content", type)});
    } else if (type == "ByteFallback") {
        m_steps.push_back({Step::Kind::ByteFallback});
    } else if (type == "Fuse") {
        m_steps.push_back({Step::Kind::Fuse});
    } else if (type == "Strip") {
        Step step{Step::Kind::Strip, stringMember(decoder, "content", type)};
        if (countUtf8Characters(step.from) != 1)
            throw FormatError("tokenizer.json's Strip decoder has the content \"" +
                              printable(step.from) + "\"; expected one character");
        step.start = countMember(decoder, "start");
        step.stop = countMember(decoder, "stop");
        m_steps.push_back(std::move(step));
    } else if (type == "Sequence") {
        const JsonValue* steps = decoder.find("decoders");
        if (!steps || !steps->isArray())
            throw FormatError("tokenizer.json's Sequence decoder has no \"decoders\" array; "
                              "expected the list of its steps");
        for (const JsonValue& step : steps->asArray())
            add(step);
    } else {
        throw FormatError("tokenizer.json's decoder is " + type +
                          "; AttnViz reads ByteLevel, Metaspace, Replace, ByteFallback, Fuse, "
                          "Strip and Sequence of these, or none");
    }
}

std::string Decoder::decode(std::vector<std::string> tokens) const
{
    if (m_none) {
        std::string joined;
        for (std::size_t k = 0; k < tokens.size(); ++k)
            joined += (k ? " " : "") + tokens[k];
        return joined;
    }
    for (const Step& step : m_steps) {
        switch (step.kind) {
        case Step::Kind::ByteLevel: {
            std::string bytes;
            for (const std::string& token : tokens)
                bytes += bytesOfSymbols(token).value_or(token);
            tokens.assign(1, std::move(bytes));
            break;
        }
        case Step::Kind::Metaspace:
            for (std::size_t k = 0; k < tokens.size(); ++k)
                tokens[k] = replaceAll(tokens[k], step.from,
                                       k == 0 && step.dropFirstReplacement ? "" : " ");
            break;
        case Step::Kind::Replace:
            for (std::string& token : tokens)
                token = replaceAll(token, step.from, step.to);
            break;
        case Step::Kind::ByteFallback: {
            std::vector<std::string> merged;
            bool inBytes = false; // whether merged.back() collects byte pieces
            for (std::string& token : tokens) {
                if (const std::optional<char> byte = fallbackByte(token)) {
                    if (!inBytes)
                        merged.emplace_back();
                    merged.back() += *byte;
                    inBytes = true;
                } else {
                    merged.push_back(std::move(token));
                    inBytes = false;
                }
            }
            tokens = std::move(merged);
            break;
        }
        case Step::Kind::Fuse: {
            std::string fused;
            for (const std::string& token : tokens)
                fused += token;
            tokens.assign(1, std::move(fused));
            break;
        }
        case Step::Kind::Strip:
            for (std::string& token : tokens)
                token = strip(token, step.from, step.start, step.stop);
            break;
        }
    }
    std::string text;
    for (const std::string& token : tokens)
        text += token;
    return text;
}

} // namespace attnviz::io
