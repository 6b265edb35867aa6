// AttnViz's own model folders (docs/model-format.md): config.json with "format": "attnviz-model",
// vocab.json (a JSON array of tokens), and model.safetensors with names such as
// `decoder.layers.0.cross.q_proj.weight`, laid out as PyTorch nn.Linear.
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/config_reader.h"
#include "io/checkpoint/model_error.h"
#include "io/checkpoint/weight_slots.h"
#include "io/input_file.h"
#include "io/tokenizer/vocabulary_tokenizer.h"

#include <unordered_set>

namespace attnviz::io {
namespace {

using engine::ConfigLimits;

class AttnvizLayout : public CheckpointLayout {
public:
    std::string_view name() const override { return "attnviz"; }
    std::string_view description() const override
    {
        return "AttnViz model folders (\"format\": \"attnviz-model\")";
    }

    bool recognises(const JsonValue& config) const override
    {
        const JsonValue* format = config.find("format");
        return format && format->isString() && format->asString() == "attnviz-model";
    }

    engine::ModelConfig parseConfig(const JsonValue& json) const override
    {
        using namespace engine;
        const ConfigReader r(json);
        ModelConfig c;
        c.name = r.string("name", {});
        c.description = r.string("description", {});
        c.architecture = r.choice<Architecture>("architecture",
                                                {{"encoder-decoder", Architecture::EncoderDecoder},
                                                 {"decoder-only", Architecture::DecoderOnly},
                                                 {"encoder-only", Architecture::EncoderOnly}});
        c.vocabSize = r.integer("vocab_size", 1, ConfigLimits::kVocabulary);
        c.modelWidth = r.integer("d_model", 1, ConfigLimits::kWidth);
        c.numHeads = r.integer("num_heads", 1, ConfigLimits::kHeads);
        c.feedForwardWidth = r.integer("d_ff", 1, ConfigLimits::kFeedForward);
        c.encoderLayers = r.integer("encoder_layers", 0, ConfigLimits::kLayers, 0);
        c.decoderLayers = r.integer("decoder_layers", 0, ConfigLimits::kLayers, 0);
        c.activation = r.choice<Activation>("activation",
                                            {{"relu", Activation::Relu},
                                             {"gelu", Activation::Gelu},
                                             {"gelu_tanh", Activation::GeluTanh}});
        c.norm = r.choice<NormPosition>("norm",
                                        {{"pre", NormPosition::Pre}, {"post", NormPosition::Post}});
        c.finalNorm = r.boolean("final_norm", false);
        c.positional = r.choice<PositionalKind>("positional",
                                                {{"sinusoidal", PositionalKind::Sinusoidal},
                                                 {"learned", PositionalKind::Learned},
                                                 {"none", PositionalKind::None}});
        c.maxLength = r.integer("max_length", 1, ConfigLimits::kLength);
        c.scaleEmbedding = r.boolean("scale_embedding", false);
        c.layerNormEps = r.number("layer_norm_eps", 1e-30, 1.0, 1e-5f);
        c.bias = r.boolean("bias", true);
        if (const JsonValue* example = json.find("example"); example && example->isObject()) {
            const ConfigReader e(*example, "config.json \"example\"");
            c.exampleText = e.string("text", {});
            c.exampleTarget = e.string("target", {});
        }
        return c;
    }

    std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& folder,
                                             const JsonValue& json,
                                             engine::ModelConfig& config) const override
    {
        const ConfigReader r(json);
        const auto unit =
            r.choice<VocabularyTokenizer::Unit>("tokenizer",
                                                {{"char", VocabularyTokenizer::Unit::Character},
                                                 {"word", VocabularyTokenizer::Unit::Word}},
                                                VocabularyTokenizer::Unit::Character);
        const auto path = folder / "vocab.json";
        // Only a vocab.json that is not there is missing; one that cannot even be looked at (a
        // symbolic link loop, a folder without search permission) is reported by readFile below.
        std::error_code error;
        if (!std::filesystem::exists(path, error) && !error)
            throw ModelError(
                "The model folder has no vocab.json (a JSON array of the tokens, in id order).");
        JsonValue vocab;
        try {
            vocab = parseJson(readFile(path.string()), "vocab.json");
        } catch (const JsonError& e) {
            throw ModelError(std::string("vocab.json is not valid JSON: ") + e.what());
        } catch (const FileError& e) {
            throw ModelError(e.what());
        }
        if (!vocab.isArray())
            throw ModelError("vocab.json must be a JSON array of token strings, found " +
                             vocab.describe() + ".");
        std::vector<std::string> tokens;
        std::unordered_set<std::string> seen;
        for (const JsonValue& t : vocab.asArray()) {
            if (!t.isString())
                throw ModelError("vocab.json: token " + std::to_string(tokens.size()) + " is " +
                                 t.describe() + ", not a string.");
            if (!seen.insert(t.asString()).second)
                throw ModelError("vocab.json lists the token \"" + printable(t.asString()) +
                                 "\" twice.");
            tokens.push_back(t.asString());
        }
        if (static_cast<int>(tokens.size()) != config.vocabSize)
            throw ModelError("vocab.json has " + std::to_string(tokens.size()) +
                             " tokens but config.json says vocab_size " +
                             std::to_string(config.vocabSize) + ".");
        auto tokenizer = std::make_unique<VocabularyTokenizer>(std::move(tokens), unit);
        const auto special = [&](const std::optional<std::string>& token) -> std::optional<int> {
            if (!token)
                return std::nullopt;
            const auto id = tokenizer->id(*token);
            if (!id)
                throw ModelError("config.json names the special token \"" + printable(*token) +
                                 "\", which vocab.json does not list.");
            return id;
        };
        config.bosTokenId = special(r.optionalString("bos_token"));
        config.eosTokenId = special(r.optionalString("eos_token"));
        return tokenizer;
    }

    void forEachWeight(const engine::ModelConfig& c, engine::ModelWeights& w,
                       const WeightVisitor& visit) const override
    {
        if (c.hasEncoder())
            visitStack(c, false, w.encoder, visit);
        if (c.hasDecoder()) {
            visitStack(c, true, w.decoder, visit);
            visit(matrixSlot({"decoder.output.weight"}, w.output, c.vocabSize, c.modelWidth));
            if (c.bias)
                visit(optionalVectorSlot({"decoder.output.bias"}, w.outputBias, c.vocabSize));
        }
    }

private:
    static void visitStack(const engine::ModelConfig& c, bool decoder, engine::StackWeights& s,
                           const WeightVisitor& visit)
    {
        using engine::Block;
        const std::int64_t D = c.modelWidth, F = c.feedForwardWidth;
        const std::string stack = decoder ? "decoder" : "encoder";
        visit(matrixSlot({stack + ".embedding.weight"}, s.embedding, c.vocabSize, D));
        if (c.positional == engine::PositionalKind::Learned)
            visit(matrixSlot({stack + ".positional.weight"}, s.positional, c.maxLength, D));
        s.layers.resize(static_cast<std::size_t>(decoder ? c.decoderLayers : c.encoderLayers));
        for (std::size_t L = 0; L < s.layers.size(); ++L) {
            engine::LayerWeights& layer = s.layers[L];
            const std::string prefix = stack + ".layers." + std::to_string(L) + ".";
            const std::vector<Block> blocks = engine::layerBlocks(c, decoder);
            layer.attention.resize(blocks.size() - 1);
            std::size_t a = 0;
            for (const Block block : blocks) {
                const std::string b = prefix + engine::blockName(block);
                if (engine::isAttention(block)) {
                    engine::AttentionSublayerWeights& sub = layer.attention[a++];
                    sub.block = block;
                    engine::AttentionWeights& aw = sub.attention;
                    const std::pair<
                        const char*,
                        std::pair<engine::RowMatrix*, std::optional<Eigen::RowVectorXf>*>>
                        projections[] = {{".q_proj", {&aw.wQ, &aw.bQ}},
                                         {".k_proj", {&aw.wK, &aw.bK}},
                                         {".v_proj", {&aw.wV, &aw.bV}},
                                         {".o_proj", {&aw.wO, &aw.bO}}};
                    for (const auto& [proj, fields] : projections) {
                        visit(matrixSlot({b + proj + ".weight"}, *fields.first, D, D));
                        if (c.bias)
                            visit(optionalVectorSlot({b + proj + ".bias"}, *fields.second, D));
                    }
                    visitLayerNorm(visit, b + "_norm", sub.norm, D);
                } else {
                    engine::FeedForwardWeights& f = layer.feedForward;
                    visit(matrixSlot({b + ".linear1.weight"}, f.w1, F, D));
                    if (c.bias)
                        visit(optionalVectorSlot({b + ".linear1.bias"}, f.b1, F));
                    visit(matrixSlot({b + ".linear2.weight"}, f.w2, D, F));
                    if (c.bias)
                        visit(optionalVectorSlot({b + ".linear2.bias"}, f.b2, D));
                    visitLayerNorm(visit, b + "_norm", layer.feedForwardNorm, D);
                }
            }
        }
        if (c.finalNorm)
            visitLayerNorm(visit, stack + ".final_norm", s.finalNorm.emplace(), D);
    }
};

} // namespace

const CheckpointLayout& attnvizLayout()
{
    static const AttnvizLayout layout;
    return layout;
}

} // namespace attnviz::io
