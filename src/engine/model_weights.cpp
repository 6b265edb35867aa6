#include "engine/model_weights.h"

namespace attnviz::engine {
namespace {

std::string stackPrefix(bool decoder)
{
    return decoder ? "decoder" : "encoder";
}

std::vector<Block> blocksOf(const ModelConfig& c, bool decoder)
{
    if (!decoder)
        return {Block::Self, Block::EncoderFeedForward};
    if (c.architecture == Architecture::EncoderDecoder)
        return {Block::MaskedSelf, Block::Cross, Block::DecoderFeedForward};
    return {Block::MaskedSelf, Block::DecoderFeedForward};
}

// Visits every tensor of one stack in order: name, shape.
template <typename Visit>
void visitStack(const ModelConfig& c, bool decoder, Visit&& visit)
{
    const std::int64_t D = c.modelWidth, F = c.feedForwardWidth;
    const std::string stack = stackPrefix(decoder);
    visit(stack + ".embedding.weight", std::vector<std::int64_t>{c.vocabSize, D});
    if (c.positional == PositionalKind::Learned)
        visit(stack + ".positional.weight", std::vector<std::int64_t>{c.maxLength, D});
    const int layers = decoder ? c.decoderLayers : c.encoderLayers;
    for (int L = 0; L < layers; ++L) {
        const std::string layer = stack + ".layers." + std::to_string(L) + ".";
        for (const Block block : blocksOf(c, decoder)) {
            const std::string b = layer + blockName(block);
            if (isAttention(block)) {
                for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".o_proj"}) {
                    visit(b + proj + ".weight", std::vector<std::int64_t>{D, D});
                    if (c.bias)
                        visit(b + proj + ".bias", std::vector<std::int64_t>{D});
                }
            } else {
                visit(b + ".linear1.weight", std::vector<std::int64_t>{F, D});
                if (c.bias)
                    visit(b + ".linear1.bias", std::vector<std::int64_t>{F});
                visit(b + ".linear2.weight", std::vector<std::int64_t>{D, F});
                if (c.bias)
                    visit(b + ".linear2.bias", std::vector<std::int64_t>{D});
            }
            visit(b + "_norm.weight", std::vector<std::int64_t>{D});
            visit(b + "_norm.bias", std::vector<std::int64_t>{D});
        }
    }
    if (c.finalNorm) {
        visit(stack + ".final_norm.weight", std::vector<std::int64_t>{D});
        visit(stack + ".final_norm.bias", std::vector<std::int64_t>{D});
    }
    if (decoder) {
        visit(std::string("decoder.output.weight"), std::vector<std::int64_t>{c.vocabSize, D});
        if (c.bias)
            visit(std::string("decoder.output.bias"), std::vector<std::int64_t>{c.vocabSize});
    }
}

} // namespace

const char* blockName(Block block)
{
    switch (block) {
    case Block::Self: return "self";
    case Block::MaskedSelf: return "masked_self";
    case Block::Cross: return "cross";
    case Block::EncoderFeedForward: return "enc_ffn";
    case Block::DecoderFeedForward: return "dec_ffn";
    }
    return "";
}

bool isAttention(Block block)
{
    return block == Block::Self || block == Block::MaskedSelf || block == Block::Cross;
}

std::vector<WeightSpec> weightSpecs(const ModelConfig& config)
{
    std::vector<WeightSpec> specs;
    const auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
        specs.push_back({name, std::move(shape)});
    };
    if (config.hasEncoder())
        visitStack(config, false, add);
    if (config.hasDecoder())
        visitStack(config, true, add);
    return specs;
}

ModelWeights assembleWeights(const ModelConfig& c,
                             const std::function<std::span<const float>(const std::string&)>& tensor)
{
    const auto matrix = [&](const std::string& name, Eigen::Index rows, Eigen::Index cols) {
        return RowMatrix(ConstMatrixView(tensor(name).data(), rows, cols));
    };
    const auto vector = [&](const std::string& name, Eigen::Index size) {
        return Eigen::RowVectorXf(Eigen::Map<const Eigen::RowVectorXf>(tensor(name).data(), size));
    };
    const auto optionalVector = [&](const std::string& name, Eigen::Index size) {
        return c.bias ? std::optional<Eigen::RowVectorXf>(vector(name, size)) : std::nullopt;
    };
    const auto norm = [&](const std::string& name) {
        return LayerNormWeights{vector(name + ".weight", c.modelWidth), vector(name + ".bias", c.modelWidth)};
    };
    const Eigen::Index D = c.modelWidth, F = c.feedForwardWidth;

    const auto stack = [&](bool decoder) {
        StackWeights s;
        const std::string prefix = stackPrefix(decoder);
        s.embedding = matrix(prefix + ".embedding.weight", c.vocabSize, D);
        if (c.positional == PositionalKind::Learned)
            s.positional = matrix(prefix + ".positional.weight", c.maxLength, D);
        const int layers = decoder ? c.decoderLayers : c.encoderLayers;
        for (int L = 0; L < layers; ++L) {
            LayerWeights layer;
            const std::string p = prefix + ".layers." + std::to_string(L) + ".";
            for (const Block block : blocksOf(c, decoder)) {
                const std::string b = p + blockName(block);
                if (isAttention(block)) {
                    AttentionSublayerWeights a;
                    a.block = block;
                    a.attention.wQ = matrix(b + ".q_proj.weight", D, D);
                    a.attention.wK = matrix(b + ".k_proj.weight", D, D);
                    a.attention.wV = matrix(b + ".v_proj.weight", D, D);
                    a.attention.wO = matrix(b + ".o_proj.weight", D, D);
                    a.attention.bQ = optionalVector(b + ".q_proj.bias", D);
                    a.attention.bK = optionalVector(b + ".k_proj.bias", D);
                    a.attention.bV = optionalVector(b + ".v_proj.bias", D);
                    a.attention.bO = optionalVector(b + ".o_proj.bias", D);
                    a.norm = norm(b + "_norm");
                    layer.attention.push_back(std::move(a));
                } else {
                    layer.feedForward.w1 = matrix(b + ".linear1.weight", F, D);
                    layer.feedForward.w2 = matrix(b + ".linear2.weight", D, F);
                    layer.feedForward.b1 = optionalVector(b + ".linear1.bias", F);
                    layer.feedForward.b2 = optionalVector(b + ".linear2.bias", D);
                    layer.feedForwardNorm = norm(b + "_norm");
                }
            }
            s.layers.push_back(std::move(layer));
        }
        if (c.finalNorm)
            s.finalNorm = norm(prefix + ".final_norm");
        return s;
    };

    ModelWeights w;
    if (c.hasEncoder())
        w.encoder = stack(false);
    if (c.hasDecoder()) {
        w.decoder = stack(true);
        w.output = matrix("decoder.output.weight", c.vocabSize, D);
        w.outputBias = optionalVector("decoder.output.bias", c.vocabSize);
    }
    return w;
}

} // namespace attnviz::engine
