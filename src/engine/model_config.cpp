#include "engine/model_config.h"

#include "engine/input_error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnviz::engine {
namespace {

std::string number(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

// Turns what is wrong with a field into the one sentence checkConfig throws.
struct ConfigCheck {
    const std::string& file;

    [[noreturn]] void fail(const std::string& sentence) const
    {
        throw InputError(file + ": " + sentence);
    }

    void inRange(int value, const char* field, int low, int high) const
    {
        if (value < low || value > high)
            fail(std::string(field) + " is " + std::to_string(value) +
                 "; expected an integer from " + std::to_string(low) + " to " +
                 std::to_string(high) + ".");
    }
};

void checkSizes(const ModelConfig& c, const ConfigCheck& check)
{
    check.inRange(c.vocabSize, "vocab_size", 1, ConfigLimits::kVocabulary);
    check.inRange(c.modelWidth, "d_model", 1, ConfigLimits::kWidth);
    check.inRange(c.numHeads, "num_heads", 1, ConfigLimits::kHeads);
    check.inRange(c.feedForwardWidth, "d_ff", 1, ConfigLimits::kFeedForward);
    check.inRange(c.maxLength, "max_length", 1, ConfigLimits::kLength);
    check.inRange(c.encoderLayers, "encoder_layers", 0, ConfigLimits::kLayers);
    check.inRange(c.decoderLayers, "decoder_layers", 0, ConfigLimits::kLayers);
    check.inRange(c.tokenTypes, "type_vocab_size", 0, ConfigLimits::kTokenTypes);
}

void checkHeads(const ModelConfig& c, const ConfigCheck& check)
{
    check.inRange(c.numKeyValueHeads, "num_key_value_heads", 0, c.numHeads);
    if (c.numHeads % c.keyValueHeads() != 0)
        check.fail("num_key_value_heads " + std::to_string(c.numKeyValueHeads) +
                   " does not divide num_heads " + std::to_string(c.numHeads) +
                   " (every K/V head serves a group of query heads of the same size).");
    check.inRange(c.headDim, "head_dim", 0, ConfigLimits::kWidth);
    // An explicit head size frees the heads from sharing d_model out.
    if (c.headDim == 0 && c.modelWidth % c.numHeads != 0)
        check.fail("d_model " + std::to_string(c.modelWidth) + " cannot be split into " +
                   std::to_string(c.numHeads) +
                   " heads of equal width (d_model must be a multiple of num_heads).");
}

void checkArchitecture(const ModelConfig& c, const ConfigCheck& check)
{
    if (c.hasEncoder() && c.encoderLayers <= 0)
        check.fail(architectureWithArticle(c.architecture) + " model needs encoder_layers ≥ 1.");
    if (c.hasDecoder() && c.decoderLayers <= 0)
        check.fail(architectureWithArticle(c.architecture) + " model needs decoder_layers ≥ 1.");
    if (!c.hasEncoder() && c.encoderLayers != 0)
        check.fail("a decoder-only model has encoder_layers 0, not " +
                   std::to_string(c.encoderLayers) + ".");
    if (!c.hasDecoder() && c.decoderLayers != 0)
        check.fail("an encoder-only model has decoder_layers 0, not " +
                   std::to_string(c.decoderLayers) + ".");
}

void checkRotary(const ModelConfig& c, const ConfigCheck& check)
{
    if (c.positional != PositionalKind::Rotary)
        return;
    if (!std::isfinite(c.ropeTheta) || !(c.ropeTheta > 0))
        check.fail("rope_theta is " + number(c.ropeTheta) +
                   "; expected a positive finite number such as 10000.");
    check.inRange(c.rotatedSize, "rotary_dim", 0, c.headSize());
    if (c.rotatedSize == 0 && c.headSize() % 2 != 0)
        check.fail("the head size " + std::to_string(c.headSize()) +
                   " is odd; rotary positions turn features in pairs, so it must be even.");
    if (c.rotatedSize % 2 != 0)
        check.fail("rotary_dim " + std::to_string(c.rotatedSize) +
                   " is odd; rotary positions turn features in pairs, so it must be even.");
    if (c.ropeScaling)
        if (const std::string problem = ropeScalingProblem(*c.ropeScaling); !problem.empty())
            check.fail(problem + ".");
}

void checkWindow(const ModelConfig& c, const ConfigCheck& check)
{
    if (!c.slidingWindow) {
        if (!c.slidingWindowLayers.empty())
            check.fail("the layers that use a sliding window are listed, but sliding_window is "
                       "not set.");
        return;
    }
    if (!c.hasDecoder())
        check.fail("sliding_window limits a decoder's causal self-attention; an encoder-only "
                   "model has none.");
    check.inRange(*c.slidingWindow, "sliding_window", 1, ConfigLimits::kLength);
    if (!c.slidingWindowLayers.empty() &&
        c.slidingWindowLayers.size() != static_cast<std::size_t>(c.decoderLayers))
        check.fail(
            "the sliding-window layer list has " + std::to_string(c.slidingWindowLayers.size()) +
            " entries; expected one per decoder layer, " + std::to_string(c.decoderLayers) + ".");
}

void checkImage(const ModelConfig& c, const ConfigCheck& check)
{
    if (!c.image)
        return;
    const ImageInput& image = *c.image;
    if (c.architecture != Architecture::EncoderOnly)
        check.fail("a Vision Transformer is an encoder; it has no decoder.");
    if (c.positional != PositionalKind::Learned)
        check.fail("a Vision Transformer learns its position embeddings.");
    check.inRange(image.height, "image_size (height)", 1, ConfigLimits::kImageSide);
    check.inRange(image.width, "image_size (width)", 1, ConfigLimits::kImageSide);
    check.inRange(image.patchSize, "patch_size", 1, std::min(image.height, image.width));
    check.inRange(image.channels, "num_channels", 1, ConfigLimits::kChannels);
    check.inRange(image.classes, "the number of labels", 0, ConfigLimits::kClasses);
    if (image.height % image.patchSize != 0 || image.width % image.patchSize != 0)
        check.fail("image_size " + std::to_string(image.height) + " × " +
                   std::to_string(image.width) + " cannot be cut into patches of " +
                   std::to_string(image.patchSize) + " (both sides must be multiples of it).");
    if (static_cast<std::int64_t>(image.patches()) + image.extraTokens() > ConfigLimits::kLength)
        check.fail("the picture makes " + std::to_string(image.patches()) + " patches; at most " +
                   std::to_string(ConfigLimits::kLength) + " tokens fit.");
    if (c.maxLength != image.tokens() || c.vocabSize != image.tokens())
        check.fail("a Vision Transformer reads " + std::to_string(image.tokens()) +
                   " tokens (its patches and first tokens); max_length and the vocabulary must "
                   "be that.");
    if (image.teacherHead && (!image.distillationToken || image.classes == 0))
        check.fail("DeiT's teacher head reads the distillation token and a classifier's labels.");
    if (!image.labels.empty() && image.labels.size() != static_cast<std::size_t>(image.classes))
        check.fail("id2label names " + std::to_string(image.labels.size()) +
                   " labels; the classifier has " + std::to_string(image.classes) + ".");
}

void checkTokens(const ModelConfig& c, const ConfigCheck& check)
{
    if (c.architecture == Architecture::EncoderDecoder && !c.bosTokenId)
        check.fail("an encoder-decoder model needs bos_token, the token its decoder starts from.");
    for (const auto& [id, field] :
         {std::pair{c.bosTokenId, "bos_token"}, std::pair{c.eosTokenId, "eos_token"}})
        if (id && (*id < 0 || *id >= c.vocabSize))
            check.fail(std::string(field) + " has id " + std::to_string(*id) +
                       ", outside the vocabulary of " + std::to_string(c.vocabSize) + ".");
}

} // namespace

int ModelConfig::layerCount() const
{
    return std::max(hasEncoder() ? encoderLayers : 0, hasDecoder() ? decoderLayers : 0);
}

int ModelConfig::headSize() const
{
    if (headDim > 0)
        return headDim;
    return numHeads ? modelWidth / numHeads : 0;
}

bool ModelConfig::windowed(int layer) const
{
    if (!slidingWindow)
        return false;
    return slidingWindowLayers.empty() ||
        (layer >= 0 && layer < static_cast<int>(slidingWindowLayers.size()) &&
         slidingWindowLayers[static_cast<std::size_t>(layer)]);
}

namespace {

// A layout's own layer configurations: one per layer, with the blocks the architecture gives
// a layer, each description a module can be, and sizes within the limits.
void checkLayerConfigs(const ModelConfig& c, const ConfigCheck& check)
{
    for (const bool decoder : {false, true}) {
        const std::vector<LayerConfig>& layers =
            decoder ? c.decoderLayerConfigs : c.encoderLayerConfigs;
        if (layers.empty())
            continue;
        const std::string stack = decoder ? "decoder" : "encoder";
        const int expected = decoder ? c.decoderLayers : c.encoderLayers;
        if (static_cast<int>(layers.size()) != expected)
            check.fail("the " + stack + " has " + std::to_string(expected) + " layers but " +
                       std::to_string(layers.size()) + " layer configurations.");
        std::vector<Block> blocks = layerBlocks(c, decoder);
        blocks.pop_back(); // the feed-forward block
        for (std::size_t L = 0; L < layers.size(); ++L) {
            const LayerConfig& layer = layers[L];
            const std::string where = stack + " layer " + std::to_string(L);
            if (layer.attention.size() != blocks.size())
                check.fail(where + " has " + std::to_string(layer.attention.size()) +
                           " attention blocks; expected " + std::to_string(blocks.size()) + ".");
            for (std::size_t a = 0; a < blocks.size(); ++a) {
                if (layer.attention[a].block != blocks[a])
                    check.fail(where + "'s attention block " + std::to_string(a) + " is " +
                               blockName(layer.attention[a].block) + "; expected " +
                               blockName(blocks[a]) + ".");
                try {
                    checkDescription(layer.attention[a].description);
                } catch (const InputError& e) {
                    check.fail(where + " " + blockName(blocks[a]) + ": " + e.what() + ".");
                }
            }
            const auto bothWays = [](const SublayerNorms& n) {
                return n.beforeSublayer && n.afterResidual;
            };
            bool twice = bothWays(layer.feedForwardNorms);
            for (const AttentionBlockConfig& a : layer.attention)
                twice = twice || bothWays(a.norms);
            if (twice)
                check.fail(where +
                           " puts one norm both before a sublayer and after its residual "
                           "add; expected one of the two (a second norm goes after the "
                           "sublayer).");
            check.inRange(layer.feedForwardWidth, "a layer's d_ff", 1, ConfigLimits::kFeedForward);
        }
    }
}

} // namespace

std::vector<Block> layerBlocks(const ModelConfig& c, bool decoder)
{
    if (!decoder)
        return {Block::Self, Block::EncoderFeedForward};
    if (c.architecture == Architecture::EncoderDecoder)
        return {Block::MaskedSelf, Block::Cross, Block::DecoderFeedForward};
    return {Block::MaskedSelf, Block::DecoderFeedForward};
}

std::vector<Block> attentionBlocksOfLayer(const ModelConfig& c, int layer)
{
    std::vector<Block> blocks;
    if (c.hasEncoder() && layer >= 0 && layer < c.encoderLayers)
        blocks.push_back(Block::Self);
    if (c.hasDecoder() && layer >= 0 && layer < c.decoderLayers)
        for (const Block b : layerBlocks(c, true))
            if (isAttention(b))
                blocks.push_back(b);
    return blocks;
}

LayerConfig standardLayer(const ModelConfig& c, bool decoder, int layer)
{
    LayerConfig out;
    const SublayerNorms norms = c.norm == NormPosition::Pre ? SublayerNorms{true, false, false}
                                                            : SublayerNorms{false, false, true};
    for (const Block block : layerBlocks(c, decoder)) {
        if (!isAttention(block))
            continue;
        AttentionDescription d;
        d.queryHeads = c.numHeads;
        d.keyValueHeads = c.keyValueHeads();
        d.queryKeySize = c.headSize();
        d.valueSize = c.headSize();
        // A query and a key of cross-attention sit in different sequences: their distance
        // means nothing, so only self-attention turns by position.
        if (c.positional == PositionalKind::Rotary && block != Block::Cross)
            d.rotary = RotaryPositions{c.ropeTheta, c.rotatedSize, c.ropeScaling};
        d.mask.causal = block == Block::MaskedSelf;
        if (d.mask.causal && c.windowed(layer))
            d.mask.slidingWindow = *c.slidingWindow;
        out.attention.push_back({block, d, norms});
    }
    out.feedForwardNorms = norms;
    out.normKind = c.normKind;
    out.feedForward = c.feedForwardKind;
    out.activation = c.activation;
    out.feedForwardWidth = c.feedForwardWidth;
    return out;
}

LayerConfig layerConfig(const ModelConfig& c, bool decoder, int layer)
{
    const std::vector<LayerConfig>& own = decoder ? c.decoderLayerConfigs : c.encoderLayerConfigs;
    if (!own.empty() && layer >= 0 && layer < static_cast<int>(own.size()))
        return own[static_cast<std::size_t>(layer)];
    return standardLayer(c, decoder, layer);
}

AttentionDescription attentionDescription(const ModelConfig& c, int layer, Block block)
{
    const LayerConfig l = layerConfig(c, block != Block::Self, layer);
    if (const AttentionBlockConfig* a = l.attentionOf(block))
        return a->description;
    throw InputError(std::string("The model has no ") + blockName(block) + " attention in layer " +
                     std::to_string(layer) + ".");
}

const AttentionBlockConfig* LayerConfig::attentionOf(Block block) const
{
    for (const AttentionBlockConfig& a : attention)
        if (a.block == block)
            return &a;
    return nullptr;
}

void checkConfig(const ModelConfig& c, const std::string& file)
{
    const ConfigCheck check{file};
    checkSizes(c, check);
    checkHeads(c, check);
    checkArchitecture(c, check);
    // As a float: 1e39 would become +Inf and LayerNorm would output only its bias.
    if (!std::isfinite(c.layerNormEps) || !(c.layerNormEps > 0) || c.layerNormEps > 1)
        check.fail(
            "layer_norm_eps must be a positive number no larger than 1 (typically 1e-5 or 1e-12).");
    checkRotary(c, check);
    checkWindow(c, check);
    checkImage(c, check);
    checkTokens(c, check);
    checkLayerConfigs(c, check);
}

const char* architectureName(Architecture a)
{
    switch (a) {
    case Architecture::EncoderDecoder:
        return "encoder-decoder";
    case Architecture::DecoderOnly:
        return "decoder-only";
    case Architecture::EncoderOnly:
        return "encoder-only";
    }
    return "";
}

std::string architectureWithArticle(Architecture a)
{
    const std::string name = architectureName(a);
    return (name.starts_with('e') ? "an " : "a ") + name;
}

const char* activationName(Activation a)
{
    switch (a) {
    case Activation::Relu:
        return "relu";
    case Activation::Gelu:
        return "gelu";
    case Activation::GeluTanh:
        return "gelu_tanh";
    case Activation::Silu:
        return "silu";
    }
    return "";
}

const char* normName(NormPosition n)
{
    return n == NormPosition::Pre ? "pre" : "post";
}

const char* positionalName(PositionalKind p)
{
    switch (p) {
    case PositionalKind::Sinusoidal:
        return "sinusoidal";
    case PositionalKind::Learned:
        return "learned";
    case PositionalKind::None:
        return "none";
    case PositionalKind::Rotary:
        return "rotary";
    }
    return "";
}

const char* normKindName(NormKind n)
{
    switch (n) {
    case NormKind::LayerNorm:
        return "layernorm";
    case NormKind::LayerNormWithoutBias:
        return "layernorm_without_bias";
    case NormKind::RmsNorm:
        return "rmsnorm";
    case NormKind::RmsNormUnitOffset:
        return "rmsnorm_unit_offset";
    }
    return "";
}

const char* feedForwardKindName(FeedForwardKind f)
{
    return f == FeedForwardKind::Gated ? "gated" : "plain";
}

} // namespace attnviz::engine
