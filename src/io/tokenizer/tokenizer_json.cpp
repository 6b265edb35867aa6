#include "io/tokenizer/tokenizer_json.h"

#include "io/file_error.h"
#include "io/safetensors.h"

namespace attnviz::io {

JsonValue parseTokenizerJson(std::string_view text, std::string_view modelType)
{
    JsonValue root;
    try {
        root = parseJson(text, "tokenizer.json");
    } catch (const JsonError& e) {
        throw FormatError(std::string("tokenizer.json is not valid JSON: ") + e.what());
    }
    const JsonValue* model = root.find("model");
    if (!model || !model->isObject())
        throw FormatError("tokenizer.json has no \"model\" object; expected a Hugging Face "
                          "tokenizer file");
    const JsonValue* type = model->find("type");
    if (!type || !type->isString() || type->asString() != modelType)
        throw FormatError("tokenizer.json's model type is " +
                          (type ? type->describe() : std::string("missing")) + "; expected \"" +
                          std::string(modelType) + "\"");
    return root;
}

const JsonValue& tokenizerModel(const JsonValue& root)
{
    return *root.find("model");
}

std::string stepType(const JsonValue& root, std::string_view step)
{
    const JsonValue* value = root.find(step);
    if (!value || value->isNull())
        return "none";
    return stepTypeOf(*value);
}

std::string stepTypeOf(const JsonValue& step)
{
    const JsonValue* type = step.find("type");
    // Escaped and bounded, as every name from a file that a message may echo: a known type such
    // as "ByteLevel" is unchanged by it, and nothing else compares equal to one.
    return type && type->isString() ? printable(type->asString(), kEchoedTypeLength)
                                    : step.describe();
}

bool flagIs(const JsonValue* object, std::string_view key, bool value)
{
    const JsonValue* flag = object ? object->find(key) : nullptr;
    return flag && flag->isBool() && flag->asBool() == value;
}

std::string stringSetting(const JsonValue& object, std::string_view key, std::string fallback)
{
    const JsonValue* value = object.find(key);
    if (!value || value->isNull())
        return fallback;
    if (!value->isString())
        throw FormatError("tokenizer.json's model." + std::string(key) + " is " +
                          value->describe() + "; expected a string");
    return value->asString();
}

namespace {

bool tokenOption(const JsonValue& entry, std::string_view name, bool fallback)
{
    const JsonValue* value = entry.find(name);
    if (!value || value->isNull())
        return fallback;
    if (!value->isBool())
        throw FormatError("tokenizer.json's added token " + entry.describe() + " has " +
                          std::string(name) + " " + value->describe() + "; expected true or false");
    return value->asBool();
}

} // namespace

std::vector<AddedToken> readAddedTokenEntries(const JsonValue& root, Vocabulary& vocab)
{
    std::vector<AddedToken> tokens;
    const JsonValue* added = root.find("added_tokens");
    if (!added || added->isNull())
        return tokens;
    if (!added->isArray())
        throw FormatError("tokenizer.json's added_tokens is " + added->describe() +
                          "; expected an array");
    for (const JsonValue& entry : added->asArray()) {
        const JsonValue* id = entry.find("id");
        const JsonValue* content = entry.find("content");
        if (!id || !id->isInteger() || !content || !content->isString())
            throw FormatError("tokenizer.json's added token " + entry.describe() +
                              " lacks a whole-number \"id\" or a string \"content\"");
        const std::string& text = content->asString();
        const std::int64_t wanted = id->asInteger();
        const std::optional<int> known = vocab.find(text);
        if (!known && wanted == vocab.size())
            vocab.append(text);
        else if (!known || *known != wanted)
            throw FormatError("tokenizer.json's added token \"" + printable(text) + "\" has id " +
                              std::to_string(wanted) + "; expected " +
                              (known ? "its vocabulary id " + std::to_string(*known)
                                     : "the next free id " + std::to_string(vocab.size())));
        AddedToken token;
        token.content = text;
        token.id = static_cast<int>(wanted);
        token.special = tokenOption(entry, "special", false);
        token.singleWord = tokenOption(entry, "single_word", false);
        token.lstrip = tokenOption(entry, "lstrip", false);
        token.rstrip = tokenOption(entry, "rstrip", false);
        token.normalized = tokenOption(entry, "normalized", !token.special);
        tokens.push_back(std::move(token));
    }
    return tokens;
}

std::vector<std::pair<std::string, int>> readAddedTokens(const JsonValue& root, Vocabulary& vocab)
{
    std::vector<std::pair<std::string, int>> tokens;
    for (AddedToken& token : readAddedTokenEntries(root, vocab))
        tokens.emplace_back(std::move(token.content), token.id);
    return tokens;
}

} // namespace attnviz::io
