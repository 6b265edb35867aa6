#include "io/checkpoint/hf_tokenizer_files.h"

#include "io/checkpoint/model_error.h"
#include "io/input_file.h"
#include "io/json.h"
#include "io/safetensors.h"

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

bool present(const fs::path& path)
{
    std::error_code error;
    return fs::exists(path, error);
}

// Runs a tokenizer constructor, turning its file and format errors into the loader's ModelError.
template <typename Build> auto reading(Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const FormatError& e) {
        throw ModelError(e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
}

std::string contentOf(const fs::path& path)
{
    return readFile(path.string());
}

/// tokenizer_config.json as a JSON value; a document that is not valid JSON is refused.
JsonValue readTokenizerConfig(const fs::path& config)
{
    return reading([&] {
        try {
            return parseJson(contentOf(config), "tokenizer_config.json");
        } catch (const JsonError& e) {
            throw ModelError(std::string("tokenizer_config.json is not valid JSON: ") + e.what());
        }
    });
}

std::optional<bool> configFlag(const JsonValue& config, std::string_view key)
{
    const JsonValue* value = config.find(key);
    if (!value || value->isNull())
        return std::nullopt;
    if (!value->isBool())
        throw ModelError("tokenizer_config.json's " + std::string(key) + " is " +
                         value->describe() + "; expected true or false");
    return value->asBool();
}

/// bos_token or eos_token: a string, or an object with its "content" (an AddedToken).
std::optional<std::string> configToken(const JsonValue& config, std::string_view key)
{
    const JsonValue* value = config.find(key);
    if (value && value->isObject())
        value = value->find("content");
    if (!value || value->isNull())
        return std::nullopt;
    if (!value->isString())
        throw ModelError("tokenizer_config.json's " + std::string(key) + " is " +
                         value->describe() + "; expected a token's text");
    return value->asString();
}

} // namespace

ByteLevelBpe loadGpt2Tokenizer(const fs::path& folder)
{
    const fs::path vocab = folder / "vocab.json", merges = folder / "merges.txt",
                   json = folder / "tokenizer.json";
    if (present(vocab) || present(merges)) {
        if (!present(vocab) || !present(merges))
            throw ModelError(
                std::string("The GPT-2 folder has ") +
                (present(vocab) ? "vocab.json but no merges.txt" : "merges.txt but no vocab.json") +
                "; its tokenizer needs both (or a tokenizer.json).");
        return reading(
            [&] { return ByteLevelBpe::fromVocabAndMerges(contentOf(vocab), contentOf(merges)); });
    }
    if (present(json))
        return reading([&] { return ByteLevelBpe::fromTokenizerJson(contentOf(json)); });
    throw ModelError("The GPT-2 folder has no tokenizer: AttnViz reads vocab.json with merges.txt, "
                     "or tokenizer.json.");
}

WordPiece loadBertTokenizer(const fs::path& folder)
{
    const fs::path config = folder / "tokenizer_config.json";
    if (present(config)) {
        const JsonValue settings = readTokenizerConfig(config);
        const JsonValue* lower = settings.isObject() ? settings.find("do_lower_case") : nullptr;
        if (lower && lower->isBool() && !lower->asBool())
            throw ModelError("tokenizer_config.json says \"do_lower_case\": false (a cased BERT); "
                             "AttnViz reads the lower-casing (uncased) BERT tokenizer only.");
    }
    const fs::path vocab = folder / "vocab.txt", json = folder / "tokenizer.json";
    if (present(vocab))
        return reading([&] { return WordPiece::fromVocabTxt(contentOf(vocab)); });
    if (present(json))
        return reading([&] { return WordPiece::fromTokenizerJson(contentOf(json)); });
    throw ModelError(
        "The BERT folder has no tokenizer: AttnViz reads vocab.txt, or tokenizer.json.");
}

std::unique_ptr<TokenizerPipeline> loadTokenizerPipeline(const fs::path& folder)
{
    const fs::path json = folder / "tokenizer.json", config = folder / "tokenizer_config.json";
    if (!present(json))
        throw ModelError("The model folder has no tokenizer.json; AttnViz reads Llama, Mistral, "
                         "Qwen2 and SmolLM tokenizers from it.");
    TokenizerSettings settings;
    if (present(config)) {
        const JsonValue values = readTokenizerConfig(config);
        if (!values.isObject())
            throw ModelError("tokenizer_config.json is " + values.describe() +
                             "; expected an object of settings");
        settings.addBosToken = configFlag(values, "add_bos_token");
        settings.addEosToken = configFlag(values, "add_eos_token");
        settings.bosToken = configToken(values, "bos_token");
        settings.eosToken = configToken(values, "eos_token");
    }
    return reading([&] { return TokenizerPipeline::fromTokenizerJson(contentOf(json), settings); });
}

} // namespace attnviz::io
