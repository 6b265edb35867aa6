// Hugging Face folders of today's decoder-only models: Llama (1, 2, 3; TinyLlama, SmolLM),
// Mistral and Qwen2, as save_pretrained or `huggingface-cli download` leave them: config.json,
// tokenizer.json (+ tokenizer_config.json) and model.safetensors or its shards. All three share
// one set of tensor names (`model.layers.N.self_attn.q_proj.weight`, `nn.Linear`'s [out, in])
// and one computation: RMSNorm before each sublayer, rotary positions in Hugging Face's
// rotate_half order, grouped K/V heads and a SwiGLU MLP `down(silu(gate·x) ⊙ up·x)`. They differ
// only in the rows of kFamilies: which projections have biases and which layers see a sliding
// window.
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/config_reader.h"
#include "io/checkpoint/hf_tokenizer_files.h"
#include "io/checkpoint/model_error.h"
#include "io/checkpoint/weight_slots.h"
#include "io/tokenizer/tokenizer_pipeline.h"

#include <array>

namespace attnviz::io {
namespace {

using engine::ConfigLimits;

enum class Biases {
    FromConfig, ///< Llama: `attention_bias` on q, k, v and o; `mlp_bias` on the MLP
    None, ///< Mistral
    QueryKeyValue, ///< Qwen2: q, k and v always, never o_proj or the MLP
};

enum class Windows {
    None, ///< Llama
    EveryLayer, ///< Mistral: `sliding_window` (null: none) on every layer
    /// Qwen2: only when `use_sliding_window`, and only on the layers from `max_window_layers` on
    /// (or those `layer_types` calls "sliding_attention").
    UpperLayers,
};

struct Family {
    const char* modelType;
    const char* architecture; ///< what `architectures` names (SmolLM and TinyLlama say Llama)
    /// The model's description (a fixed sentence, so that translations can name it); the panel
    /// states the sizes, windows and scaling a folder sets.
    const char* description;
    Biases biases;
    Windows windows;
};

constexpr std::array<Family, 3> kFamilies{{
    {"llama", "LlamaForCausalLM",
     "Hugging Face Llama: decoder-only, RMSNorm before each sublayer, rotary positions, K/V "
     "heads shared by groups of query heads, a SwiGLU MLP.",
     Biases::FromConfig, Windows::None},
    {"mistral", "MistralForCausalLM",
     "Hugging Face Mistral: Llama's design with a sliding window, so each token attends to a "
     "fixed number of recent tokens only.",
     Biases::None, Windows::EveryLayer},
    {"qwen2", "Qwen2ForCausalLM",
     "Hugging Face Qwen2: Llama's design with biases on the query, key and value projections, "
     "and a sliding window on the upper layers when the configuration turns it on.",
     Biases::QueryKeyValue, Windows::UpperLayers},
}};

bool namesArchitecture(const JsonValue& config, std::string_view architecture)
{
    const JsonValue* list = config.isObject() ? config.find("architectures") : nullptr;
    if (!list || !list->isArray())
        return false;
    for (const JsonValue& entry : list->asArray())
        if (entry.isString() && entry.asString() == architecture)
            return true;
    return false;
}

const Family* familyOf(const JsonValue& config)
{
    for (const Family& f : kFamilies)
        if (hasModelType(config, f.modelType))
            return &f;
    for (const Family& f : kFamilies)
        if (namesArchitecture(config, f.architecture))
            return &f;
    return nullptr;
}

// Hugging Face's rope_scaling (transformers v4; the older key "type" for "rope_type") or
// rope_parameters (v5, which also holds rope_theta): the stretching of rotary positions.
std::optional<engine::RopeScaling> ropeScalingOf(const JsonValue& json, double& theta)
{
    const char* key = json.find("rope_parameters") ? "rope_parameters" : "rope_scaling";
    const JsonValue* value = json.find(key);
    if (!value || value->isNull())
        return std::nullopt;
    const ConfigReader r(*value, std::string("config.json's \"") + key + "\"");
    if (std::string_view(key) == "rope_parameters")
        theta = r.real("rope_theta", 1e-30, 1e300, theta);
    const char* kindKey = r.given("rope_type") ? "rope_type" : "type";
    if (!r.given(kindKey)) {
        if (std::string_view(key) == "rope_parameters")
            r.fail("there is no \"rope_type\"; expected \"default\", \"linear\" or \"llama3\" "
                   "(one set of parameters for every layer).");
        r.fail("there is no \"rope_type\" (or \"type\"); expected \"linear\" or \"llama3\".");
    }
    const std::string kind = r.string(kindKey, {});
    if (kind == "default")
        return std::nullopt;
    engine::RopeScaling s;
    if (kind == "linear") {
        s.kind = engine::RopeScaling::Kind::Linear;
    } else if (kind == "llama3") {
        s.kind = engine::RopeScaling::Kind::Llama3;
        s.lowFrequencyFactor = r.real("low_freq_factor", 1e-30, 1e30, s.lowFrequencyFactor);
        s.highFrequencyFactor = r.real("high_freq_factor", 1e-30, 1e30, s.highFrequencyFactor);
        s.originalContext = r.integer("original_max_position_embeddings", 1, ConfigLimits::kLength);
    } else {
        r.fail("\"" + std::string(kindKey) + "\" is " + value->find(kindKey)->describe() +
               ", a stretching of rotary positions AttnViz does not compute; it computes "
               "\"default\", \"linear\" and \"llama3\".");
    }
    s.factor = r.real("factor", 1e-30, 1e30, 0);
    if (!r.given("factor"))
        r.fail("there is no \"factor\"; the " + kind + " scaling needs one, such as 8.");
    return s;
}

// Which layers a Qwen2 window applies to: `layer_types` when the config lists them
// (transformers ≥ 4.53), else every layer from max_window_layers on.
std::vector<bool> upperWindowLayers(const JsonValue& json, const ConfigReader& r, int layers)
{
    std::vector<bool> windowed(static_cast<std::size_t>(layers));
    if (const JsonValue* types = json.find("layer_types"); types && !types->isNull()) {
        const std::string expected = "; expected a list of " + std::to_string(layers) +
            " entries, \"full_attention\" or \"sliding_attention\", one per layer.";
        if (!types->isArray())
            r.fail("\"layer_types\" is " + types->describe() + expected);
        if (std::ssize(types->asArray()) != layers)
            r.fail("\"layer_types\" lists " + std::to_string(types->asArray().size()) + " entries" +
                   expected);
        for (std::size_t L = 0; L < windowed.size(); ++L) {
            const JsonValue& t = types->asArray()[L];
            const bool full = t.isString() && t.asString() == "full_attention";
            windowed[L] = t.isString() && t.asString() == "sliding_attention";
            if (!full && !windowed[L])
                r.fail("\"layer_types\" names " + t.describe() + " for layer " + std::to_string(L) +
                       "; expected \"full_attention\" or \"sliding_attention\".");
        }
        return windowed;
    }
    const int from = r.integer("max_window_layers", 0, ConfigLimits::kLayers, layers);
    for (int L = from; L < layers; ++L)
        windowed[static_cast<std::size_t>(L)] = true;
    return windowed;
}

void readWindow(const Family& family, const JsonValue& json, const ConfigReader& r,
                engine::ModelConfig& c)
{
    if (family.windows == Windows::None)
        return;
    if (family.windows == Windows::UpperLayers && !r.boolean("use_sliding_window", false))
        return;
    c.slidingWindow = r.optionalInteger("sliding_window", 1, ConfigLimits::kLength);
    if (c.slidingWindow && family.windows == Windows::UpperLayers)
        c.slidingWindowLayers = upperWindowLayers(json, r, c.decoderLayers);
    // A window no layer uses is no window; keeping it would make the lessons mention one.
    if (!c.slidingWindowLayers.empty() &&
        std::ranges::none_of(c.slidingWindowLayers, [](bool w) { return w; })) {
        c.slidingWindow.reset();
        c.slidingWindowLayers.clear();
    }
}

void readBiases(const Family& family, const ConfigReader& r, engine::ModelConfig& c)
{
    c.bias = false;
    switch (family.biases) {
    case Biases::FromConfig:
        c.attentionBias = c.outputProjectionBias = r.boolean("attention_bias", false);
        c.mlpBias = r.boolean("mlp_bias", false);
        break;
    case Biases::None:
        break;
    case Biases::QueryKeyValue:
        c.attentionBias = true;
        c.outputProjectionBias = false;
        break;
    }
}

// bos_token_id / eos_token_id: an id, null, or (Llama 3 Instruct) a list whose first entry counts.
std::optional<int> specialId(const JsonValue& json, const char* field, int tokens)
{
    const JsonValue* v = json.find(field);
    if (!v || v->isNull())
        return std::nullopt;
    if (v->isArray() && !v->asArray().empty()) {
        const JsonValue& first = v->asArray().front();
        if (first.isInteger() && first.asInteger() >= 0 && first.asInteger() < tokens)
            return static_cast<int>(first.asInteger());
    } else if (v->isInteger() && v->asInteger() >= 0 && v->asInteger() < tokens) {
        return static_cast<int>(v->asInteger());
    }
    throw ModelError("config.json: \"" + std::string(field) + "\" is " + v->describe() +
                     "; expected a token id from 0 to " + std::to_string(tokens - 1) +
                     " (or a list of them).");
}

class LlamaFamilyLayout : public CheckpointLayout {
public:
    std::string_view name() const override { return "llama"; }
    std::string_view description() const override
    {
        return "Hugging Face Llama, Mistral and Qwen2 folders (\"model_type\": \"llama\", "
               "\"mistral\" or \"qwen2\", or \"architectures\" naming LlamaForCausalLM, "
               "MistralForCausalLM or Qwen2ForCausalLM)";
    }

    bool recognises(const JsonValue& config) const override { return familyOf(config); }

    engine::ModelConfig parseConfig(const JsonValue& json) const override
    {
        using namespace engine;
        const Family& family = *familyOf(json);
        const ConfigReader r(json);
        ModelConfig c;
        c.architecture = Architecture::DecoderOnly;
        c.vocabSize = r.integer("vocab_size", 1, ConfigLimits::kVocabulary);
        c.modelWidth = r.integer("hidden_size", 1, ConfigLimits::kWidth);
        c.numHeads = r.integer("num_attention_heads", 1, ConfigLimits::kHeads);
        c.numKeyValueHeads =
            r.optionalInteger("num_key_value_heads", 1, ConfigLimits::kHeads).value_or(0);
        c.headDim = r.optionalInteger("head_dim", 1, ConfigLimits::kWidth).value_or(0);
        c.decoderLayers = r.integer("num_hidden_layers", 1, ConfigLimits::kLayers);
        c.feedForwardWidth = r.integer("intermediate_size", 1, ConfigLimits::kFeedForward);
        c.maxLength = r.integer("max_position_embeddings", 1, ConfigLimits::kLength);
        c.activation = r.choice<Activation>(
            "hidden_act", {{"silu", Activation::Silu}, {"swish", Activation::Silu}},
            Activation::Silu);
        c.feedForwardKind = FeedForwardKind::Gated;
        c.normKind = NormKind::RmsNorm;
        c.norm = NormPosition::Pre;
        c.finalNorm = true;
        c.layerNormEps = r.number("rms_norm_eps", 1e-30, 1.0, 1e-6f);
        c.positional = PositionalKind::Rotary;
        c.ropeTheta = r.real("rope_theta", 1e-30, 1e300, 10000.0);
        c.ropeScaling = ropeScalingOf(json, c.ropeTheta);
        c.tiedOutput = r.boolean("tie_word_embeddings", false);
        readBiases(family, r, c);
        readWindow(family, json, r, c);
        c.description = family.description;
        c.exampleText = "The capital of France is Paris, and the capital of Germany is";
        return c;
    }

    std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& folder,
                                             const JsonValue& json,
                                             engine::ModelConfig& config) const override
    {
        std::unique_ptr<TokenizerPipeline> tokenizer = loadTokenizerPipeline(folder);
        const int tokens = std::max(tokenizer->size(), config.vocabSize);
        config.bosTokenId = specialId(json, "bos_token_id", tokens);
        config.eosTokenId = specialId(json, "eos_token_id", tokens);
        if (!config.bosTokenId)
            config.bosTokenId = tokenizer->bosId();
        if (!config.eosTokenId)
            config.eosTokenId = tokenizer->eosId();
        return tokenizer;
    }

    // A base model (LlamaModel) saves its tensors without the `model.` prefix.
    std::vector<std::string> namePrefixes() const override { return {"model.", ""}; }

    bool ignores(std::string_view name) const override
    {
        // Buffers older transformers versions saved, and the copy of the embedding a tied
        // model's lm_head is (Hugging Face ties it on loading, whatever the file holds).
        return name.ends_with(".rotary_emb.inv_freq") || name == "lm_head.weight";
    }

    void forEachWeight(const engine::ModelConfig& c, engine::ModelWeights& w,
                       const WeightVisitor& visit) const override
    {
        const std::int64_t D = c.modelWidth, F = c.feedForwardWidth, P = c.headSize();
        const std::int64_t Q = c.numHeads * P, KV = c.keyValueHeads() * P;
        engine::StackWeights& s = w.decoder;
        visit(matrixSlot({"embed_tokens.weight"}, s.embedding, c.vocabSize, D));
        s.layers.resize(static_cast<std::size_t>(c.decoderLayers));
        const auto linear = [](const WeightVisitor& visitLayer, const std::string& base,
                               engine::RowMatrix& weight, std::optional<Eigen::RowVectorXf>& bias,
                               std::int64_t rows, std::int64_t cols, bool hasBias) {
            visitLayer(matrixSlot({base + ".weight"}, weight, rows, cols));
            if (hasBias)
                visitLayer(optionalVectorSlot({base + ".bias"}, bias, rows));
        };
        for (std::size_t L = 0; L < s.layers.size(); ++L) {
            engine::LayerWeights& layer = s.layers[L];
            const std::string p = "layers." + std::to_string(L) + ".";
            const WeightVisitor visitLayer = inLayer(visit, L);
            engine::AttentionSublayerWeights& sub = layer.attention.emplace_back();
            sub.block = engine::Block::MaskedSelf;
            visitLayer(vectorSlot({p + "input_layernorm.weight"}, sub.norm.gain, D));
            engine::AttentionWeights& a = sub.attention;
            const bool qkvBias = c.hasAttentionBias();
            linear(visitLayer, p + "self_attn.q_proj", a.wQ, a.bQ, Q, D, qkvBias);
            linear(visitLayer, p + "self_attn.k_proj", a.wK, a.bK, KV, D, qkvBias);
            linear(visitLayer, p + "self_attn.v_proj", a.wV, a.bV, KV, D, qkvBias);
            linear(visitLayer, p + "self_attn.o_proj", a.wO, a.bO, D, Q,
                   c.hasOutputProjectionBias());
            const WeightVisitor visitFeedForward = inFeedForward(visitLayer);
            visitFeedForward(
                vectorSlot({p + "post_attention_layernorm.weight"}, layer.feedForwardNorm.gain, D));
            engine::FeedForwardWeights& f = layer.feedForward;
            linear(visitFeedForward, p + "mlp.gate_proj", f.gate, f.bGate, F, D, c.hasMlpBias());
            linear(visitFeedForward, p + "mlp.up_proj", f.w1, f.b1, F, D, c.hasMlpBias());
            linear(visitFeedForward, p + "mlp.down_proj", f.w2, f.b2, D, F, c.hasMlpBias());
        }
        visit(vectorSlot({"norm.weight"}, s.finalNorm.emplace().gain, D));
        if (!c.tiedOutput) {
            WeightSlot head = matrixSlot({"lm_head.weight"}, w.output, c.vocabSize, D);
            head.unprefixed = true;
            visit(std::move(head));
        }
    }
};

} // namespace

const CheckpointLayout& llamaFamilyLayout()
{
    static const LlamaFamilyLayout layout;
    return layout;
}

} // namespace attnviz::io
