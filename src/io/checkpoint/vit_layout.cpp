// Hugging Face Vision Transformer folders (`model_type: "vit"` or `"deit"`), as ViTModel,
// ViTForImageClassification, DeiTForImageClassification(WithTeacher) save them, with or without
// the `vit.` / `deit.` prefix: a patch projection (a convolution with kernel = stride = patch
// size), a CLS token (and DeiT's distillation token), learned positions, pre-norm encoder layers
// (`layernorm_before`, `layernorm_after`), a final LayerNorm and the classifier(s). The pooler
// and a masked-image-modelling token are not part of what AttnViz shows and are ignored.
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/config_reader.h"
#include "io/checkpoint/weight_slots.h"
#include "io/tokenizer/patch_tokenizer.h"

#include <charconv>

namespace attnviz::io {
namespace {

using engine::ConfigLimits;

// A side of image_size or patch_size: an integer, or a pair of integers.
std::pair<int, int> sides(const JsonValue& json, const ConfigReader& r, const char* name,
                          int fallback)
{
    const JsonValue* v = json.find(name);
    if (!v || v->isNull())
        return {fallback, fallback};
    if (v->isArray() && v->asArray().size() == 2 && v->asArray()[0].isInteger() &&
        v->asArray()[1].isInteger()) {
        const auto a = v->asArray()[0].asInteger(), b = v->asArray()[1].asInteger();
        if (a >= 1 && a <= ConfigLimits::kImageSide && b >= 1 && b <= ConfigLimits::kImageSide)
            return {static_cast<int>(a), static_cast<int>(b)};
    }
    const int side = r.integer(name, 1, ConfigLimits::kImageSide);
    return {side, side};
}

// A learned vector stored [1, 1, D] (the CLS and distillation tokens).
WeightSlot tokenSlot(std::string name, Eigen::RowVectorXf& into, std::int64_t D)
{
    return {{std::move(name)}, {1, 1, D}, [&into, D](const StoredTensor& values) {
                into.resize(D);
                values.convertInto({into.data(), static_cast<std::size_t>(D)});
            }};
}

// A matrix stored with a leading axis of 1 or split axes that the engine keeps as rows × cols
// (position embeddings [1, N, D]; the patch convolution [D, C, P, P] as [D, C·P·P]).
WeightSlot reshapedSlot(std::string name, std::vector<std::int64_t> shape, engine::RowMatrix& into,
                        std::int64_t rows, std::int64_t cols)
{
    return {{std::move(name)}, std::move(shape), [&into, rows, cols](const StoredTensor& values) {
                into.resize(rows, cols);
                values.convertInto({into.data(), static_cast<std::size_t>(into.size())});
            }};
}

class VitLayout : public CheckpointLayout {
public:
    std::string_view name() const override { return "vit"; }
    std::string_view description() const override
    {
        return "Hugging Face Vision Transformers (\"model_type\": \"vit\" or \"deit\")";
    }

    bool recognises(const JsonValue& config) const override
    {
        return hasModelType(config, "vit") || hasModelType(config, "deit");
    }

    engine::ModelConfig parseConfig(const JsonValue& json) const override
    {
        using namespace engine;
        const ConfigReader r(json);
        const bool deit = hasModelType(json, "deit");
        ModelConfig c;
        c.architecture = Architecture::EncoderOnly;
        c.modelWidth = r.integer("hidden_size", 1, ConfigLimits::kWidth);
        c.numHeads = r.integer("num_attention_heads", 1, ConfigLimits::kHeads);
        c.encoderLayers = r.integer("num_hidden_layers", 1, ConfigLimits::kLayers);
        c.feedForwardWidth = r.integer("intermediate_size", 1, ConfigLimits::kFeedForward);
        c.activation = r.choice<Activation>("hidden_act",
                                            {{"gelu", Activation::Gelu},
                                             {"gelu_new", Activation::GeluTanh},
                                             {"gelu_pytorch_tanh", Activation::GeluTanh},
                                             {"relu", Activation::Relu}},
                                            Activation::Gelu);
        c.layerNormEps = r.number("layer_norm_eps", 1e-30, 1.0, 1e-12f);
        c.norm = NormPosition::Pre;
        c.finalNorm = true;
        c.positional = PositionalKind::Learned;
        c.attentionBias = r.boolean("qkv_bias", true);
        c.outputProjectionBias = true;
        c.mlpBias = true;

        ImageInput image;
        const auto [height, width] = sides(json, r, "image_size", 224);
        const auto [patchHeight, patchWidth] = sides(json, r, "patch_size", 16);
        if (patchHeight != patchWidth)
            r.fail("\"patch_size\" is " + std::to_string(patchHeight) + " × " +
                   std::to_string(patchWidth) + "; AttnViz cuts square patches only.");
        image.height = height;
        image.width = width;
        image.patchSize = patchHeight;
        image.channels = r.integer("num_channels", 1, ConfigLimits::kChannels, 3);
        image.distillationToken = deit;
        const std::string architecture = architectureOf(json);
        const bool classifier = architecture.ends_with("ForImageClassification") ||
            architecture.ends_with("ForImageClassificationWithTeacher");
        image.teacherHead = architecture.ends_with("WithTeacher");
        if (classifier) {
            image.labels = labels(json, r);
            image.classes = static_cast<int>(image.labels.size());
            if (image.classes == 0)
                r.fail("\"id2label\" names no label; a classifier needs at least one.");
        }
        if (height % image.patchSize != 0 || width % image.patchSize != 0)
            r.fail("\"image_size\" " + std::to_string(height) + " × " + std::to_string(width) +
                   " is not a whole number of patches of " + std::to_string(image.patchSize) + ".");
        c.vocabSize = c.maxLength = image.tokens();
        c.image = image;
        // A fixed sentence, so that translations can name it; the sizes are the panel's.
        c.description = deit ? "Hugging Face DeiT: encoder-only, pre-norm, a picture cut into "
                               "patches behind a class and a distillation token."
                             : "Hugging Face ViT: encoder-only, pre-norm, a picture cut into "
                               "patches behind a class token.";
        return c;
    }

    std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path&, const JsonValue&,
                                             engine::ModelConfig& c) const override
    {
        return std::make_unique<PatchTokenizer>(c.image->patchRows(), c.image->patchColumns(),
                                                c.image->distillationToken);
    }

    std::vector<std::string> namePrefixes() const override { return {"", "vit.", "deit."}; }

    bool ignores(std::string_view name) const override
    {
        return name.starts_with("pooler.") || name == "embeddings.mask_token";
    }

    void forEachWeight(const engine::ModelConfig& c, engine::ModelWeights& w,
                       const WeightVisitor& visit) const override
    {
        const std::int64_t D = c.modelWidth, F = c.feedForwardWidth;
        const engine::ImageInput& image = *c.image;
        const std::int64_t P = image.patchSize, C = image.channels, N = image.tokens();
        engine::ImageWeights& iw = w.image.emplace();
        engine::StackWeights& s = w.encoder;
        visit(tokenSlot("embeddings.cls_token", iw.clsToken, D));
        if (image.distillationToken)
            visit(tokenSlot("embeddings.distillation_token", iw.distillationToken.emplace(), D));
        visit(reshapedSlot("embeddings.position_embeddings", {1, N, D}, s.positional, N, D));
        visit(reshapedSlot("embeddings.patch_embeddings.projection.weight", {D, C, P, P},
                           iw.patchProjection, D, C * P * P));
        visit(vectorSlot({"embeddings.patch_embeddings.projection.bias"}, iw.patchBias, D));
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
                projections[] = {{"attention.attention.query", {&a.wQ, &a.bQ}},
                                 {"attention.attention.key", {&a.wK, &a.bK}},
                                 {"attention.attention.value", {&a.wV, &a.bV}},
                                 {"attention.output.dense", {&a.wO, &a.bO}}};
            for (const auto& [projection, fields] : projections) {
                visitLayer(matrixSlot({l + projection + ".weight"}, *fields.first, D, D));
                const bool biased = fields.first == &a.wO || c.hasAttentionBias();
                if (biased)
                    visitLayer(optionalVectorSlot({l + projection + ".bias"}, *fields.second, D));
            }
            visitLayerNorm(visitLayer, l + "layernorm_before", sub.norm, D);
            engine::FeedForwardWeights& f = layer.feedForward;
            const WeightVisitor visitFeedForward = inFeedForward(visitLayer);
            visitFeedForward(matrixSlot({l + "intermediate.dense.weight"}, f.w1, F, D));
            visitFeedForward(optionalVectorSlot({l + "intermediate.dense.bias"}, f.b1, F));
            visitFeedForward(matrixSlot({l + "output.dense.weight"}, f.w2, D, F));
            visitFeedForward(optionalVectorSlot({l + "output.dense.bias"}, f.b2, D));
            visitLayerNorm(visitFeedForward, l + "layernorm_after", layer.feedForwardNorm, D);
        }
        visitLayerNorm(visit, "layernorm", s.finalNorm.emplace(), D);
        const auto head = [&](const char* name, engine::RowMatrix& m, Eigen::RowVectorXf& b) {
            WeightSlot weight = matrixSlot({std::string(name) + ".weight"}, m, image.classes, D);
            WeightSlot bias = vectorSlot({std::string(name) + ".bias"}, b, image.classes);
            weight.unprefixed = bias.unprefixed = true;
            visit(std::move(weight));
            visit(std::move(bias));
        };
        if (image.teacherHead) {
            head("cls_classifier", iw.classifier, iw.classifierBias);
            head("distillation_classifier", iw.distillationClassifier,
                 iw.distillationClassifierBias);
        } else if (image.classes > 0) {
            head("classifier", iw.classifier, iw.classifierBias);
        }
    }

private:
    static std::string architectureOf(const JsonValue& json)
    {
        const JsonValue* list = json.find("architectures");
        if (list && list->isArray() && !list->asArray().empty() && list->asArray()[0].isString())
            return list->asArray()[0].asString();
        return {};
    }

    // id2label in id order: keys "0" … "n − 1", each a string.
    static std::vector<std::string> labels(const JsonValue& json, const ConfigReader& r)
    {
        const JsonValue* map = json.find("id2label");
        if (!map || !map->isObject())
            r.fail("\"id2label\" is missing; a classifier's labels are named there.");
        const auto& entries = map->asObject();
        if (entries.size() > static_cast<std::size_t>(ConfigLimits::kClasses))
            r.fail("\"id2label\" names " + std::to_string(entries.size()) + " labels; at most " +
                   std::to_string(ConfigLimits::kClasses) + " are read.");
        std::vector<std::string> out(entries.size());
        std::vector<bool> seen(entries.size(), false);
        for (const auto& [key, value] : entries) {
            std::size_t id = 0;
            const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
            if (ec != std::errc() || end != key.data() + key.size() || id >= out.size() ||
                seen[id] || !value.isString())
                r.fail("\"id2label\" must map the ids 0 to " + std::to_string(out.size() - 1) +
                       " to names, each once.");
            seen[id] = true;
            out[id] = value.asString();
        }
        return out;
    }
};

} // namespace

const CheckpointLayout& vitLayout()
{
    static const VitLayout layout;
    return layout;
}

} // namespace attnviz::io
