// Hugging Face BERT folders (`model_type: "bert"`), as BertModel or BertForMaskedLM save them,
// with or without the `bert.` prefix: word + position + token-type embeddings and a LayerNorm
// over their sum, then post-norm encoder layers. LayerNorms are `weight`/`bias` or, in
// TensorFlow-converted checkpoints, `gamma`/`beta`. The pooler and the pre-training heads are
// not part of what AttnViz shows and are ignored.
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/config_reader.h"
#include "io/checkpoint/hf_tokenizer_files.h"
#include "io/checkpoint/weight_slots.h"

namespace attnviz::io {
namespace {

using engine::ConfigLimits;

class BertLayout : public CheckpointLayout {
public:
    std::string_view name() const override { return "bert"; }
    std::string_view description() const override
    {
        return "Hugging Face BERT folders (\"model_type\": \"bert\")";
    }

    bool recognises(const JsonValue& config) const override { return hasModelType(config, "bert"); }

    engine::ModelConfig parseConfig(const JsonValue& json) const override
    {
        using namespace engine;
        const ConfigReader r(json);
        ModelConfig c;
        c.description = "Hugging Face BERT: encoder-only, post-norm, learned positions and "
                        "segments.";
        c.architecture = Architecture::EncoderOnly;
        c.vocabSize = r.integer("vocab_size", 1, ConfigLimits::kVocabulary);
        c.modelWidth = r.integer("hidden_size", 1, ConfigLimits::kWidth);
        c.numHeads = r.integer("num_attention_heads", 1, ConfigLimits::kHeads);
        c.encoderLayers = r.integer("num_hidden_layers", 1, ConfigLimits::kLayers);
        c.feedForwardWidth = r.integer("intermediate_size", 1, ConfigLimits::kFeedForward);
        c.maxLength = r.integer("max_position_embeddings", 1, ConfigLimits::kLength);
        c.tokenTypes = r.integer("type_vocab_size", 0, ConfigLimits::kTokenTypes, 2);
        c.activation = r.choice<Activation>("hidden_act",
                                            {{"gelu", Activation::Gelu},
                                             {"gelu_new", Activation::GeluTanh},
                                             {"gelu_pytorch_tanh", Activation::GeluTanh},
                                             {"relu", Activation::Relu}},
                                            Activation::Gelu);
        c.layerNormEps = r.number("layer_norm_eps", 1e-30, 1.0, 1e-12f);
        if (r.string("position_embedding_type", "absolute") != "absolute")
            r.fail("\"position_embedding_type\" is " +
                   json.find("position_embedding_type")->describe() +
                   "; AttnViz computes BERT with absolute (learned) positions only.");
        c.norm = NormPosition::Post;
        c.finalNorm = false;
        c.positional = PositionalKind::Learned;
        c.embeddingNorm = true;
        c.bias = true;
        c.exampleText = "the cat sat on the mat because it was tired.";
        return c;
    }

    std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& folder, const JsonValue&,
                                             engine::ModelConfig&) const override
    {
        return std::make_unique<WordPiece>(loadBertTokenizer(folder));
    }

    std::vector<std::string> namePrefixes() const override { return {"", "bert."}; }

    bool ignores(std::string_view name) const override
    {
        return name.starts_with("pooler.") || name.starts_with("cls.") ||
            name == "embeddings.position_ids";
    }

    void forEachWeight(const engine::ModelConfig& c, engine::ModelWeights& w,
                       const WeightVisitor& visit) const override
    {
        const std::int64_t D = c.modelWidth, F = c.feedForwardWidth;
        engine::StackWeights& s = w.encoder;
        visit(matrixSlot({"embeddings.word_embeddings.weight"}, s.embedding, c.vocabSize, D));
        visit(matrixSlot({"embeddings.position_embeddings.weight"}, s.positional, c.maxLength, D));
        if (c.tokenTypes > 0)
            visit(matrixSlot({"embeddings.token_type_embeddings.weight"}, s.tokenType, c.tokenTypes,
                             D));
        visitLayerNorm(visit, "embeddings.LayerNorm", s.embeddingNorm.emplace(), D, true);
        s.layers.resize(static_cast<std::size_t>(c.encoderLayers));
        for (std::size_t L = 0; L < s.layers.size(); ++L) {
            engine::LayerWeights& layer = s.layers[L];
            const std::string l = "encoder.layer." + std::to_string(L) + ".";
            const WeightVisitor visitLayer = inLayer(visit, L);
            layer.attention.resize(1);
            engine::AttentionSublayerWeights& sub = layer.attention.front();
            sub.block = engine::Block::Self;
            engine::AttentionWeights& a = sub.attention;
            const std::pair<const char*,
                            std::pair<engine::RowMatrix*, std::optional<Eigen::RowVectorXf>*>>
                projections[] = {{"attention.self.query", {&a.wQ, &a.bQ}},
                                 {"attention.self.key", {&a.wK, &a.bK}},
                                 {"attention.self.value", {&a.wV, &a.bV}},
                                 {"attention.output.dense", {&a.wO, &a.bO}}};
            for (const auto& [projection, fields] : projections) {
                visitLayer(matrixSlot({l + projection + ".weight"}, *fields.first, D, D));
                visitLayer(optionalVectorSlot({l + projection + ".bias"}, *fields.second, D));
            }
            visitLayerNorm(visitLayer, l + "attention.output.LayerNorm", sub.norm, D, true);
            engine::FeedForwardWeights& f = layer.feedForward;
            const WeightVisitor visitFeedForward = inFeedForward(visitLayer);
            visitFeedForward(matrixSlot({l + "intermediate.dense.weight"}, f.w1, F, D));
            visitFeedForward(optionalVectorSlot({l + "intermediate.dense.bias"}, f.b1, F));
            visitFeedForward(matrixSlot({l + "output.dense.weight"}, f.w2, D, F));
            visitFeedForward(optionalVectorSlot({l + "output.dense.bias"}, f.b2, D));
            visitLayerNorm(visitFeedForward, l + "output.LayerNorm", layer.feedForwardNorm, D,
                           true);
        }
    }
};

} // namespace

const CheckpointLayout& bertLayout()
{
    static const BertLayout layout;
    return layout;
}

} // namespace attnviz::io
