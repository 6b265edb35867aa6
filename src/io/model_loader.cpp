#include "io/model_loader.h"

#include "engine/input_error.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

#include <cstring>
#include <filesystem>
#include <set>

namespace attnviz::io {
namespace {

using engine::ModelConfig;

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

const JsonValue& field(const JsonValue& json, const char* name)
{
    const JsonValue* v = json.find(name);
    if (!v)
        throw ModelError(std::string("config.json has no \"") + name + "\" field.");
    return *v;
}

int integerField(const JsonValue& json, const char* name)
{
    const JsonValue& v = field(json, name);
    if (!v.isInteger() || v.asInteger() < 0 || v.asInteger() > 1'000'000'000)
        throw ModelError(std::string("config.json: \"") + name + "\" must be a non-negative integer, found " +
                         v.describe() + ".");
    return static_cast<int>(v.asInteger());
}

bool boolField(const JsonValue& json, const char* name, bool fallback)
{
    const JsonValue* v = json.find(name);
    if (!v)
        return fallback;
    if (!v->isBool())
        throw ModelError(std::string("config.json: \"") + name + "\" must be true or false, found " + v->describe() + ".");
    return v->asBool();
}

std::string stringField(const JsonValue& json, const char* name, const std::string& fallback)
{
    const JsonValue* v = json.find(name);
    if (!v || v->isNull())
        return fallback;
    if (!v->isString())
        throw ModelError(std::string("config.json: \"") + name + "\" must be a string, found " + v->describe() + ".");
    return v->asString();
}

std::optional<std::string> optionalString(const JsonValue& json, const char* name)
{
    const JsonValue* v = json.find(name);
    if (!v || v->isNull())
        return std::nullopt;
    return stringField(json, name, {});
}

template <typename Enum>
Enum choice(const JsonValue& json, const char* name, std::initializer_list<std::pair<const char*, Enum>> options,
            std::optional<Enum> fallback = std::nullopt)
{
    const JsonValue* v = json.find(name);
    if (!v && fallback)
        return *fallback;
    const std::string value = stringField(json, name, {});
    std::string expected;
    for (const auto& [text, e] : options) {
        if (value == text)
            return e;
        expected += (expected.empty() ? "" : ", ") + std::string(text);
    }
    throw ModelError(std::string("config.json: \"") + name + "\" is \"" + value + "\"; expected one of " + expected + ".");
}

engine::Vocabulary readVocabulary(const std::filesystem::path& path, int expectedSize)
{
    if (!std::filesystem::exists(path))
        throw ModelError("The model folder has no vocab.json (a JSON array of the tokens, in id order).");
    JsonValue json;
    try {
        json = parseJson(readFile(path.string()));
    } catch (const JsonError& e) {
        throw ModelError(std::string("vocab.json is not valid JSON: ") + e.what());
    }
    if (!json.isArray())
        throw ModelError("vocab.json must be a JSON array of token strings, found " + json.describe() + ".");
    std::vector<std::string> tokens;
    std::set<std::string> seen;
    for (const JsonValue& t : json.asArray()) {
        if (!t.isString())
            throw ModelError("vocab.json: token " + std::to_string(tokens.size()) + " is " + t.describe() + ", not a string.");
        if (!seen.insert(t.asString()).second)
            throw ModelError("vocab.json lists the token \"" + t.asString() + "\" twice.");
        tokens.push_back(t.asString());
    }
    if (static_cast<int>(tokens.size()) != expectedSize)
        throw ModelError("vocab.json has " + std::to_string(tokens.size()) + " tokens but config.json says vocab_size " +
                         std::to_string(expectedSize) + ".");
    return engine::Vocabulary(std::move(tokens));
}

} // namespace

ModelConfig parseModelConfig(const JsonValue& json)
{
    using namespace engine;
    if (!json.isObject())
        throw ModelError("config.json must hold a JSON object, found " + json.describe() + ".");
    const std::string format = stringField(json, "format", "attnviz-model");
    if (format != "attnviz-model")
        throw ModelError("config.json: \"format\" is \"" + format + "\"; expected \"attnviz-model\".");
    ModelConfig c;
    c.name = stringField(json, "name", {});
    c.description = stringField(json, "description", {});
    c.architecture = choice<Architecture>(json, "architecture",
                                          {{"encoder-decoder", Architecture::EncoderDecoder},
                                           {"decoder-only", Architecture::DecoderOnly},
                                           {"encoder-only", Architecture::EncoderOnly}});
    c.vocabSize = integerField(json, "vocab_size");
    c.modelWidth = integerField(json, "d_model");
    c.numHeads = integerField(json, "num_heads");
    c.feedForwardWidth = integerField(json, "d_ff");
    c.encoderLayers = json.find("encoder_layers") ? integerField(json, "encoder_layers") : 0;
    c.decoderLayers = json.find("decoder_layers") ? integerField(json, "decoder_layers") : 0;
    c.activation = choice<Activation>(json, "activation",
                                      {{"relu", Activation::Relu}, {"gelu", Activation::Gelu}, {"gelu_tanh", Activation::GeluTanh}});
    c.norm = choice<NormPosition>(json, "norm", {{"pre", NormPosition::Pre}, {"post", NormPosition::Post}});
    c.finalNorm = boolField(json, "final_norm", false);
    c.positional = choice<PositionalKind>(json, "positional",
                                          {{"sinusoidal", PositionalKind::Sinusoidal},
                                           {"learned", PositionalKind::Learned},
                                           {"none", PositionalKind::None}});
    c.maxLength = integerField(json, "max_length");
    c.scaleEmbedding = boolField(json, "scale_embedding", false);
    if (const JsonValue* eps = json.find("layer_norm_eps")) {
        if (!eps->isNumber())
            throw ModelError("config.json: \"layer_norm_eps\" must be a number, found " + eps->describe() + ".");
        c.layerNormEps = static_cast<float>(eps->asNumber());
    }
    c.bias = boolField(json, "bias", true);
    c.tokenizer = choice<TokenizerKind>(json, "tokenizer", {{"char", TokenizerKind::Character}, {"word", TokenizerKind::Word}},
                                        TokenizerKind::Character);
    c.bosToken = optionalString(json, "bos_token");
    c.eosToken = optionalString(json, "eos_token");
    if (const JsonValue* example = json.find("example"); example && example->isObject()) {
        c.exampleText = stringField(*example, "text", {});
        c.exampleTarget = stringField(*example, "target", {});
    }
    try {
        checkConfig(c);
    } catch (const InputError& e) {
        throw ModelError(e.what());
    }
    return c;
}

std::shared_ptr<const engine::TransformerModel> loadModel(const std::string& folder)
{
    namespace fs = std::filesystem;
    const fs::path dir(folder);
    if (!fs::is_directory(dir))
        throw ModelError("'" + folder + "' is not a folder; a model is a folder with config.json, vocab.json and model.safetensors.");
    if (!fs::exists(dir / "config.json"))
        throw ModelError("'" + folder + "' has no config.json; a model folder holds config.json, vocab.json and model.safetensors.");
    JsonValue json;
    try {
        json = parseJson(readFile((dir / "config.json").string()));
    } catch (const JsonError& e) {
        throw ModelError(std::string("config.json is not valid JSON: ") + e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
    ModelConfig config = parseModelConfig(json);
    engine::Vocabulary vocabulary = readVocabulary(dir / "vocab.json", config.vocabSize);
    for (const auto& special : {config.bosToken, config.eosToken})
        if (special && !vocabulary.id(*special))
            throw ModelError("config.json names the special token \"" + *special + "\", which vocab.json does not list.");

    if (!fs::exists(dir / "model.safetensors"))
        throw ModelError("'" + folder + "' has no model.safetensors with the weights.");
    SafetensorsFile file = [&] {
        try {
            return SafetensorsFile::read((dir / "model.safetensors").string());
        } catch (const FormatError& e) {
            throw ModelError(std::string("model.safetensors is damaged: ") + e.what());
        } catch (const FileError& e) {
            throw ModelError(e.what());
        }
    }();

    const std::vector<engine::WeightSpec> specs = engine::weightSpecs(config);
    std::set<std::string> expected;
    for (const engine::WeightSpec& spec : specs) {
        expected.insert(spec.name);
        const TensorEntry* t = file.find(spec.name);
        if (!t)
            throw ModelError("model.safetensors has no tensor '" + spec.name + "'; the configuration expects F32 " +
                             shapeText(spec.shape) + ".");
        if (t->shape != spec.shape)
            throw ModelError("model.safetensors: tensor '" + spec.name + "' has shape " + shapeText(t->shape) +
                             "; the configuration expects " + shapeText(spec.shape) + ".");
        if (t->dtype != DType::F32)
            throw ModelError("model.safetensors: tensor '" + spec.name + "' is " + std::string(dtypeName(t->dtype)) +
                             "; AttnViz reads F32 weights.");
    }
    for (const TensorEntry& t : file.tensors())
        if (!expected.count(t.name))
            throw ModelError("model.safetensors holds tensor '" + t.name + "', which a model with this config.json does not have.");

    // Tensor data in a safetensors file need not be aligned for float; copy through memcpy.
    std::vector<float> scratch;
    const auto tensor = [&](const std::string& name) -> std::span<const float> {
        const TensorEntry* t = file.find(name);
        scratch.resize(t->bytes.size() / sizeof(float));
        std::memcpy(scratch.data(), t->bytes.data(), t->bytes.size());
        return scratch;
    };
    try {
        engine::ModelWeights weights = engine::assembleWeights(config, tensor);
        return std::make_shared<const engine::TransformerModel>(std::move(config), std::move(weights), std::move(vocabulary));
    } catch (const engine::InputError& e) {
        throw ModelError(e.what());
    }
}

} // namespace attnviz::io
