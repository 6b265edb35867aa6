// Hugging Face GPT-2 folders (`model_type: "gpt2"`: gpt2, distilgpt2, gpt2-medium, ...), as
// save_pretrained writes them: config.json with n_embd/n_head/n_layer, vocab.json + merges.txt
// or tokenizer.json, and model.safetensors (or shards) with or without the `transformer.` prefix.
// GPT-2 stores its linear layers as Conv1D, [in, out] with y = x W + b, and fuses the query, key
// and value projections into one `c_attn` whose output columns are Q | K | V.
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/config_reader.h"
#include "io/checkpoint/hf_tokenizer_files.h"
#include "io/checkpoint/weight_slots.h"
#include "io/tokenizer/byte_level_bpe.h"

namespace attnviz::io {
namespace {

using engine::ConfigLimits;

// `c_attn` split into the engine's three [D, D] projections: stored [D, 3D], column block k of
// the output is projection k.
WeightSlot fusedQkvWeight(std::string name, engine::AttentionWeights& into, std::int64_t D)
{
    return {{std::move(name)}, {D, 3 * D}, [&into, D](const StoredTensor& values) {
                transposeInto(values, D, 3 * D, {&into.wQ, &into.wK, &into.wV});
            }};
}

WeightSlot fusedQkvBias(std::string name, engine::AttentionWeights& into, std::int64_t D)
{
    return {{std::move(name)}, {3 * D}, [&into, D](const StoredTensor& values) {
                const std::vector<float> floats = values.floats();
                const Eigen::Map<const Eigen::RowVectorXf> stored(floats.data(), 3 * D);
                into.bQ = stored.segment(0, D);
                into.bK = stored.segment(D, D);
                into.bV = stored.segment(2 * D, D);
            }};
}

class Gpt2Layout : public CheckpointLayout {
public:
    std::string_view name() const override { return "gpt2"; }
    std::string_view description() const override
    {
        return "Hugging Face GPT-2 folders (\"model_type\": \"gpt2\")";
    }

    bool recognises(const JsonValue& config) const override { return hasModelType(config, "gpt2"); }

    engine::ModelConfig parseConfig(const JsonValue& json) const override
    {
        using namespace engine;
        const ConfigReader r(json);
        ModelConfig c;
        c.description = "Hugging Face GPT-2: decoder-only, pre-norm, learned positions.";
        c.architecture = Architecture::DecoderOnly;
        c.vocabSize = r.integer("vocab_size", 1, ConfigLimits::kVocabulary);
        c.modelWidth = r.integer("n_embd", 1, ConfigLimits::kWidth);
        c.numHeads = r.integer("n_head", 1, ConfigLimits::kHeads);
        c.decoderLayers = r.integer("n_layer", 1, ConfigLimits::kLayers);
        c.maxLength = r.integerOf({"n_positions", "n_ctx"}, 1, ConfigLimits::kLength);
        const JsonValue* inner = json.find("n_inner");
        c.feedForwardWidth = inner && !inner->isNull()
            ? r.integer("n_inner", 1, ConfigLimits::kFeedForward)
            : static_cast<int>(
                  std::min<std::int64_t>(4LL * c.modelWidth, ConfigLimits::kFeedForward));
        c.activation = r.choice<Activation>("activation_function",
                                            {{"gelu_new", Activation::GeluTanh},
                                             {"gelu_pytorch_tanh", Activation::GeluTanh},
                                             {"gelu", Activation::Gelu},
                                             {"relu", Activation::Relu}},
                                            Activation::GeluTanh);
        c.layerNormEps = r.number("layer_norm_epsilon", 1e-30, 1.0, 1e-5f);
        c.norm = NormPosition::Pre;
        c.finalNorm = true;
        c.positional = PositionalKind::Learned;
        c.tiedOutput = r.boolean("tie_word_embeddings", true);
        c.bias = true;
        // Variants whose attention is not softmax(QKᵀ/√d_k) would show wrong numbers.
        if (!r.boolean("scale_attn_weights", true))
            r.fail("\"scale_attn_weights\" is false; AttnViz computes GPT-2 attention scaled by "
                   "1/√d_k, as the published model does.");
        if (r.boolean("scale_attn_by_inverse_layer_idx", false))
            r.fail("\"scale_attn_by_inverse_layer_idx\" is true; AttnViz computes GPT-2 "
                   "attention scaled by 1/√d_k only, as the published model does.");
        c.exampleText = "The quick brown fox jumps over the lazy dog because it";
        return c;
    }

    std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& folder,
                                             const JsonValue& json,
                                             engine::ModelConfig& config) const override
    {
        auto tokenizer = std::make_unique<ByteLevelBpe>(loadGpt2Tokenizer(folder));
        const ConfigReader r(json);
        const auto special = [&](const char* field) -> std::optional<int> {
            if (!r.has(field) || json.find(field)->isNull())
                return std::nullopt;
            return r.integer(field, 0, tokenizer->size() - 1);
        };
        config.bosTokenId = special("bos_token_id");
        config.eosTokenId = special("eos_token_id");
        return tokenizer;
    }

    std::vector<std::string> namePrefixes() const override { return {"", "transformer."}; }

    bool ignores(std::string_view name) const override
    {
        // The causal-mask buffers old transformers versions saved, and an lm_head that is only a
        // copy of wte (tied).
        return name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias") ||
            name == "lm_head.weight";
    }

    void forEachWeight(const engine::ModelConfig& c, engine::ModelWeights& w,
                       const WeightVisitor& visit) const override
    {
        const std::int64_t D = c.modelWidth, F = c.feedForwardWidth;
        engine::StackWeights& s = w.decoder;
        visit(matrixSlot({"wte.weight"}, s.embedding, c.vocabSize, D));
        visit(matrixSlot({"wpe.weight"}, s.positional, c.maxLength, D));
        s.layers.resize(static_cast<std::size_t>(c.decoderLayers));
        for (std::size_t L = 0; L < s.layers.size(); ++L) {
            engine::LayerWeights& layer = s.layers[L];
            const std::string h = "h." + std::to_string(L) + ".";
            const WeightVisitor visitLayer = inLayer(visit, L);
            layer.attention.resize(1);
            engine::AttentionSublayerWeights& sub = layer.attention.front();
            sub.block = engine::Block::MaskedSelf;
            visitLayer(fusedQkvWeight(h + "attn.c_attn.weight", sub.attention, D));
            visitLayer(fusedQkvBias(h + "attn.c_attn.bias", sub.attention, D));
            visitLayer(transposedSlot({h + "attn.c_proj.weight"}, sub.attention.wO, D, D));
            visitLayer(optionalVectorSlot({h + "attn.c_proj.bias"}, sub.attention.bO, D));
            visitLayerNorm(visitLayer, h + "ln_1", sub.norm, D);
            engine::FeedForwardWeights& f = layer.feedForward;
            const WeightVisitor visitFeedForward = inFeedForward(visitLayer);
            visitFeedForward(transposedSlot({h + "mlp.c_fc.weight"}, f.w1, F, D));
            visitFeedForward(optionalVectorSlot({h + "mlp.c_fc.bias"}, f.b1, F));
            visitFeedForward(transposedSlot({h + "mlp.c_proj.weight"}, f.w2, D, F));
            visitFeedForward(optionalVectorSlot({h + "mlp.c_proj.bias"}, f.b2, D));
            visitLayerNorm(visitFeedForward, h + "ln_2", layer.feedForwardNorm, D);
        }
        visitLayerNorm(visit, "ln_f", s.finalNorm.emplace(), D);
        if (!c.tiedOutput) {
            WeightSlot head = matrixSlot({"lm_head.weight"}, w.output, c.vocabSize, D);
            head.unprefixed = true;
            visit(std::move(head));
        }
    }
};

} // namespace

const CheckpointLayout& gpt2Layout()
{
    static const Gpt2Layout layout;
    return layout;
}

} // namespace attnviz::io
