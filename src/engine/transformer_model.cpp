#include "engine/transformer_model.h"

#include "engine/image_embedding.h"
#include "engine/input_error.h"
#include "engine/layer_norm.h"
#include "engine/non_finite.h"
#include "engine/positional_encoding.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnviz::engine {
namespace {

Tensor tokenTensor(std::int64_t tokens, std::int64_t width)
{
    return Tensor({{"batch", 1}, {"token", tokens}, {"feature", width}});
}

void add(const Tensor& a, const Tensor& b, Tensor& out)
{
    out.reshape(a.axes());
    for (std::int64_t i = 0; i < a.size(); ++i)
        out.data()[i] = a.data()[i] + b.data()[i];
}

// A norm of kind `kind` (LayerNorm, RMSNorm, Gemma's) over every token of x.
void normaliseTokens(const Tensor& x, const LayerNormWeights& w, NormKind kind, float eps,
                     Tensor& out)
{
    out.reshape(x.axes());
    const auto rows = x.dim(0) * x.dim(1);
    normalise(kind, ConstMatrixView(x.data(), rows, x.dim(2)), w, eps,
              MatrixView(out.data(), rows, x.dim(2)));
}

// The tensors one sublayer's residual connection makes.
struct ResidualTensors {
    Tensor& norm;
    Tensor& outputNorm;
    Tensor& residual;
};

// Residual connection and norms around a sublayer, where `norms` puts them: pre-norm
// x + f(N(x)), post-norm N(x + f(x)), Gemma's sandwich x + N₂(f(N₁(x))). Returns the block's
// output.
template <typename Sublayer>
const Tensor& residualBlock(const Tensor& x, const SublayerNorms& norms, NormKind kind, float eps,
                            const LayerNormWeights& norm, const LayerNormWeights* outputNorm,
                            const ResidualTensors& out, Sublayer&& sublayer)
{
    const Tensor* input = &x;
    if (norms.beforeSublayer) {
        normaliseTokens(x, norm, kind, eps, out.norm);
        requireFinite(out.norm, "norm");
        input = &out.norm;
    }
    const Tensor* branch = &sublayer(*input);
    if (norms.afterSublayer) {
        normaliseTokens(*branch, *outputNorm, kind, eps, out.outputNorm);
        requireFinite(out.outputNorm, "output_norm");
        branch = &out.outputNorm;
    }
    add(x, *branch, out.residual);
    requireFinite(out.residual, "residual");
    if (!norms.afterResidual)
        return out.residual;
    normaliseTokens(out.residual, norm, kind, eps, out.norm);
    requireFinite(out.norm, "norm");
    return out.norm;
}

// Where a block sits, for a NonFiniteError: "decoder layer 3, masked_self block".
std::string blockPlace(bool decoder, int layer, Block block)
{
    return std::string(decoder ? "decoder" : "encoder") + " layer " + std::to_string(layer) + ", " +
        std::string(blockName(block)) + " block";
}

std::string shapeOf(const RowMatrix& m)
{
    return shapeText(std::vector<std::int64_t>{m.rows(), m.cols()});
}

void expectShape(const RowMatrix& m, Eigen::Index rows, Eigen::Index cols, const std::string& what)
{
    if (m.rows() != rows || m.cols() != cols)
        throw InputError(what + " has shape " + shapeOf(m) + "; the configuration expects [" +
                         std::to_string(rows) + ", " + std::to_string(cols) + "].");
}

void expectSize(const Eigen::RowVectorXf& v, Eigen::Index size, const std::string& what)
{
    if (v.size() != size)
        throw InputError(what + " has " + std::to_string(v.size()) +
                         " values; the configuration expects " + std::to_string(size) + ".");
}

// A bias is there exactly when the configuration gives the projection one.
void expectBias(const std::optional<Eigen::RowVectorXf>& b, bool configured, Eigen::Index size,
                const std::string& what)
{
    if (b && !configured)
        throw InputError(what + " has a bias; the configuration expects none.");
    if (!b && configured)
        throw InputError(what + " has no bias; the configuration expects one of " +
                         std::to_string(size) + " values.");
    if (b)
        expectSize(*b, size, what + " bias");
}

// "LayerNorm" or "RMSNorm": what messages call a norm.
std::string normLabel(NormKind kind)
{
    return kind == NormKind::RmsNorm || kind == NormKind::RmsNormUnitOffset ? "RMSNorm"
                                                                            : "LayerNorm";
}

// A norm's bias: only a LayerNorm that has one.
Eigen::Index normBiasSize(NormKind kind, Eigen::Index width)
{
    return kind == NormKind::LayerNorm ? width : 0;
}

// A gain, and a bias only for a LayerNorm that has one.
void expectNorm(const LayerNormWeights& n, NormKind kind, Eigen::Index width,
                const std::string& what)
{
    const std::string norm = what + " " + normLabel(kind);
    expectSize(n.gain, width, norm + " gain");
    expectSize(n.bias, normBiasSize(kind, width), norm + " bias");
}

// The norm after a sublayer is there exactly when the layer's configuration puts one there.
void expectOutputNorm(const std::optional<LayerNormWeights>& n, const SublayerNorms& norms,
                      NormKind kind, Eigen::Index width, const std::string& what)
{
    if (n.has_value() != norms.afterSublayer)
        throw InputError(what +
                         (n ? " has a norm after the sublayer; the configuration expects "
                              "none."
                            : " has no norm after the sublayer; the configuration's "
                              "sandwich norms expect one."));
    if (n)
        expectNorm(*n, kind, width, what + " output");
}

// The rows of w_q, w_k and w_v and the columns of w_o, from the block's description:
// w_q [H·Pqk, D], w_k [H_kv·Pqk, D], w_v [H_kv·Pv, D], w_o [D, H·Pv].
struct ProjectionSizes {
    Eigen::Index queries, keys, values, concat;
};

ProjectionSizes projectionSizes(const AttentionDescription& d)
{
    const Eigen::Index H = d.queryHeads, Hkv = d.keyValueHeads;
    return {H * d.queryKeySize, Hkv * d.queryKeySize, Hkv * d.valueSize, H * d.valueSize};
}

// Shapes from the block's description (projectionSizes) and the biases the configuration gives
// them.
void expectAttention(const AttentionWeights& w, const AttentionDescription& d, const ModelConfig& c,
                     const std::string& what)
{
    const Eigen::Index D = c.modelWidth;
    const auto [queries, keys, values, concat] = projectionSizes(d);
    expectShape(w.wQ, queries, D, what + " w_q");
    expectShape(w.wK, keys, D, what + " w_k");
    expectShape(w.wV, values, D, what + " w_v");
    expectShape(w.wO, D, concat, what + " w_o");
    expectBias(w.bQ, c.hasAttentionBias(), queries, what + " q_proj");
    expectBias(w.bK, c.hasAttentionBias(), keys, what + " k_proj");
    expectBias(w.bV, c.hasAttentionBias(), values, what + " v_proj");
    expectBias(w.bO, c.hasOutputProjectionBias(), D, what + " o_proj");
}

void expectFeedForward(const FeedForwardWeights& f, const LayerConfig& l, const ModelConfig& c,
                       const std::string& what)
{
    const Eigen::Index D = c.modelWidth, F = l.feedForwardWidth;
    const bool gated = l.feedForward == FeedForwardKind::Gated;
    expectShape(f.w1, F, D, what + " W1");
    expectShape(f.w2, D, F, what + " W2");
    if (gated)
        expectShape(f.gate, F, D, what + " gate");
    else if (f.gate.size() > 0)
        throw InputError(what + " has a gate; the configuration's feed-forward block is plain.");
    expectBias(f.b1, c.hasMlpBias(), F, what + " W1");
    expectBias(f.b2, c.hasMlpBias(), D, what + " W2");
    expectBias(f.bGate, gated && c.hasMlpBias(), F, what + " gate");
}

// Drops what the capture policy does not keep of a layer computed in full. With `spare`, what is
// dropped moves there (allocations and all), so that the next layer can be computed into it
// without allocating and first touching those pages again.
void trimLayer(LayerTrace& layer, const AttentionKeep& keep, bool layerTensors,
               LayerTrace* spare = nullptr)
{
    // Moved out, then reset by move-assignment: a copy-assignment of an empty tensor would keep
    // the old allocation.
    const auto drop = [](Tensor& t, Tensor* into) {
        if (into)
            *into = std::move(t);
        t = Tensor();
    };
    if (spare)
        spare->attention.resize(layer.attention.size());
    for (std::size_t i = 0; i < layer.attention.size(); ++i) {
        AttentionBlockTrace& a = layer.attention[i];
        AttentionBlockTrace* s = spare ? &spare->attention[i] : nullptr;
        for (const AttentionStepInfo& info : kAttentionStepTable)
            if (!keep.has(info.step))
                drop(a.attention.step(info.step), s ? &s->attention.step(info.step) : nullptr);
        if (!layerTensors) {
            drop(a.norm, s ? &s->norm : nullptr);
            drop(a.outputNorm, s ? &s->outputNorm : nullptr);
            drop(a.residual, s ? &s->residual : nullptr);
        }
    }
    if (!layerTensors) {
        FeedForwardBlockTrace& f = layer.feedForward;
        FeedForwardBlockTrace* s = spare ? &spare->feedForward : nullptr;
        drop(f.feedForward.gatePre, s ? &s->feedForward.gatePre : nullptr);
        drop(f.feedForward.hiddenPre, s ? &s->feedForward.hiddenPre : nullptr);
        drop(f.feedForward.hidden, s ? &s->feedForward.hidden : nullptr);
        drop(f.feedForward.output, s ? &s->feedForward.output : nullptr);
        drop(f.norm, s ? &s->norm : nullptr);
        drop(f.outputNorm, s ? &s->outputNorm : nullptr);
        drop(f.residual, s ? &s->residual : nullptr);
    }
}

} // namespace

std::int64_t layerParameterCount(const ModelConfig& c, bool decoder, int layer)
{
    const LayerConfig l = layerConfig(c, decoder, layer);
    const Eigen::Index D = c.modelWidth, F = l.feedForwardWidth;
    const Eigen::Index norm = D + normBiasSize(l.normKind, D);
    Eigen::Index n = 0;
    for (const AttentionBlockConfig& a : l.attention) {
        const auto [queries, keys, values, concat] = projectionSizes(a.description);
        n += (queries + keys + values) * D + D * concat + norm * (a.norms.afterSublayer ? 2 : 1);
        if (c.hasAttentionBias())
            n += queries + keys + values;
        if (c.hasOutputProjectionBias())
            n += D;
        // QK-norm's gains and the sinks are the module's too.
        const AttentionDescription& d = a.description;
        if (d.queryKeyNorm)
            n += d.queryKeyNorm->scope == QueryKeyNorm::Scope::PerHead
                ? 2 * d.queryKeySize
                : (d.queryHeads + d.keyValueHeads) * d.queryKeySize;
        if (d.learnedSinks)
            n += d.queryHeads;
    }
    // W1 reads the block's input, and so does the gate of a gated block.
    const Eigen::Index branches = l.feedForward == FeedForwardKind::Gated ? 2 : 1;
    n += branches * F * D + D * F + norm * (l.feedForwardNorms.afterSublayer ? 2 : 1);
    if (c.hasMlpBias())
        n += branches * F + D;
    return n;
}

std::int64_t decoderMultiplyAdds(const ModelConfig& c, std::int64_t cachedTokens,
                                 std::int64_t newTokens, std::int64_t sourceTokens)
{
    const std::int64_t D = c.modelWidth;
    const std::int64_t total = cachedTokens + newTokens;
    std::int64_t work = 0;
    for (int L = 0; L < c.decoderLayers; ++L) {
        const LayerConfig l = layerConfig(c, true, L);
        const std::int64_t F = l.feedForwardWidth;
        const std::int64_t branches = l.feedForward == FeedForwardKind::Gated ? 2 : 1;
        for (const AttentionBlockConfig& a : l.attention) {
            const Block b = a.block;
            const AttentionDescription& d = a.description;
            const auto [queries, keys, values, concat] = projectionSizes(d);
            const std::int64_t perQueryKey = d.queryHeads * (d.queryKeySize + d.valueSize);
            work += newTokens * (queries + concat) * D;
            if (b == Block::Cross) {
                work += sourceTokens * (keys + values) * D;
                work += newTokens * sourceTokens * perQueryKey;
                continue;
            }
            work += newTokens * (keys + values) * D;
            // Query i (counted from 0 over all tokens) sees keys max(0, i − W + 1) … i.
            for (std::int64_t i = cachedTokens; i < total; ++i) {
                const std::int64_t seen =
                    d.mask.slidingWindow ? std::min(i + 1, *d.mask.slidingWindow) : i + 1;
                work += seen * perQueryKey;
            }
        }
        work += newTokens * (branches + 1) * F * D;
    }
    return work + static_cast<std::int64_t>(c.vocabSize) * D;
}

std::vector<int> Ablation::headsOf(int layer, Block block) const
{
    std::vector<int> out;
    for (const Head& h : heads)
        if (h.layer == layer && h.block == block)
            out.push_back(h.head);
    return out;
}

const MultiHeadAttention* ModelLayer::module(Block block) const
{
    for (std::size_t a = 0; a < weights.attention.size(); ++a)
        if (weights.attention[a].block == block)
            return &attention[a];
    return nullptr;
}

TransformerModel::TransformerModel(ModelConfig config, ModelWeights weights)
    : m_config(std::move(config))
    , m_weights(std::move(weights))
{
    checkConfig(m_config);
    if (m_weights.layerSource && m_config.hasEncoder() && m_config.hasDecoder())
        throw InputError("Only a model with one stack streams its layers; this one has an "
                         "encoder and a decoder.");
    checkWeights();
    const auto build = [&](StackWeights& stackWeights, Stack& stack) {
        stack.weights = &stackWeights;
        for (std::size_t L = 0; L < stackWeights.layers.size(); ++L)
            stack.layers.push_back(buildLayer(std::move(stackWeights.layers[L]),
                                              &stack == &m_decoder, static_cast<int>(L)));
        stackWeights.layers.clear();
    };
    if (m_config.hasEncoder())
        build(m_weights.encoder, m_encoder);
    if (m_config.hasDecoder())
        build(m_weights.decoder, m_decoder);
}

std::shared_ptr<const ModelLayer> TransformerModel::buildLayer(LayerWeights weights, bool decoder,
                                                               int layer) const
{
    auto built = std::make_shared<ModelLayer>();
    built->config = layerConfig(m_config, decoder, layer);
    built->weights = std::move(weights);
    for (AttentionSublayerWeights& a : built->weights.attention)
        built->attention.emplace_back(std::move(a.attention),
                                      built->config.attentionOf(a.block)->description);
    return built;
}

int TransformerModel::layerCount(bool decoder) const
{
    return decoder ? m_config.decoderLayers : m_config.encoderLayers;
}

std::shared_ptr<const ModelLayer> TransformerModel::layer(bool decoder, int layer,
                                                          LayerPart part) const
{
    const Stack& stack = stackFor(decoder);
    if (!stack.weights || layer < 0 || layer >= layerCount(decoder))
        throw InputError(std::string("The model has no ") + (decoder ? "decoder" : "encoder") +
                         " layer " + std::to_string(layer) + ".");
    if (!m_weights.layerSource)
        return stack.layers[static_cast<std::size_t>(layer)];
    {
        const std::lock_guard lock(m_lastLoadedMutex);
        if (m_lastLoaded && m_lastLoadedAt == std::pair{decoder, layer} &&
            (m_lastLoadedPart == LayerPart::Whole || part == LayerPart::Attention))
            return m_lastLoaded;
        // Let go before loading the next: holding two layers at once is what streaming avoids.
        m_lastLoaded.reset();
    }
    LayerWeights weights = m_weights.layerSource->load(layer, part);
    checkLayerWeights(weights, layer, decoder, part);
    std::shared_ptr<const ModelLayer> built = buildLayer(std::move(weights), decoder, layer);
    const std::lock_guard lock(m_lastLoadedMutex);
    m_lastLoaded = built;
    m_lastLoadedAt = {decoder, layer};
    m_lastLoadedPart = part;
    return built;
}

void TransformerModel::checkWeights() const
{
    const ModelConfig& c = m_config;
    if (c.hasEncoder())
        checkStackWeights(m_weights.encoder, false);
    if (c.image.has_value() != m_weights.image.has_value())
        throw InputError(c.image ? "A Vision Transformer's weights lack its patch projection."
                                 : "The weights hold a patch projection; the configuration "
                                   "reads token ids.");
    if (c.image)
        checkImageWeights(*m_weights.image, c);
    if (c.hasDecoder()) {
        checkStackWeights(m_weights.decoder, true);
        if (!c.tiedOutput)
            expectShape(m_weights.output, c.vocabSize, c.modelWidth, "the output projection");
        if (m_weights.outputBias)
            expectSize(*m_weights.outputBias, c.vocabSize, "the output bias");
    }
}

void TransformerModel::checkStackWeights(const StackWeights& s, bool decoder) const
{
    const ModelConfig& c = m_config;
    const Eigen::Index D = c.modelWidth;
    const std::string name = decoder ? "decoder" : "encoder";
    // A Vision Transformer's tokens come from its patches (ImageWeights), not from a table.
    if (!c.image)
        expectShape(s.embedding, c.vocabSize, D, name + " embedding");
    if (c.positional == PositionalKind::Learned)
        expectShape(s.positional, c.maxLength, D, name + " positional embedding");
    if (c.tokenTypes > 0)
        expectShape(s.tokenType, c.tokenTypes, D, name + " token-type embedding");
    if (c.embeddingNorm != s.embeddingNorm.has_value())
        throw InputError(name + " embedding " + normLabel(c.normKind) +
                         ": the configuration and the weights disagree.");
    if (s.embeddingNorm)
        expectNorm(*s.embeddingNorm, c.normKind, D, name + " embedding");
    const auto layers = static_cast<std::size_t>(layerCount(decoder));
    if (m_weights.layerSource) {
        if (!s.layers.empty())
            throw InputError(name +
                             " holds layers and streams them too; expected one or the "
                             "other.");
    } else if (s.layers.size() != layers)
        throw InputError(name + " has " + std::to_string(s.layers.size()) +
                         " layers of weights; the configuration expects " + std::to_string(layers) +
                         ".");
    for (std::size_t L = 0; L < s.layers.size(); ++L)
        checkLayerWeights(s.layers[L], static_cast<int>(L), decoder);
    if (c.finalNorm != s.finalNorm.has_value())
        throw InputError(name + " final " + normLabel(c.normKind) +
                         ": the configuration and the weights disagree.");
    if (s.finalNorm)
        expectNorm(*s.finalNorm, c.normKind, D, name + " final");
}

void TransformerModel::checkLayerWeights(const LayerWeights& lw, int L, bool decoder,
                                         LayerPart part) const
{
    const ModelConfig& c = m_config;
    const std::string layer =
        std::string(decoder ? "decoder" : "encoder") + " layer " + std::to_string(L);
    const LayerConfig config = layerConfig(c, decoder, L);
    const Eigen::Index D = c.modelWidth;
    if (lw.attention.size() != config.attention.size())
        throw InputError(layer + " has " + std::to_string(lw.attention.size()) +
                         " attention blocks; expected " + std::to_string(config.attention.size()) +
                         ".");
    for (std::size_t k = 0; k < lw.attention.size(); ++k) {
        const AttentionSublayerWeights& a = lw.attention[k];
        const AttentionBlockConfig& expected = config.attention[k];
        const std::string block = layer + " " + blockName(a.block);
        if (a.block != expected.block)
            throw InputError(block + ": the configuration expects " + blockName(expected.block) +
                             " here.");
        expectNorm(a.norm, config.normKind, D, block);
        expectOutputNorm(a.outputNorm, expected.norms, config.normKind, D, block);
        expectAttention(a.attention, expected.description, c, block);
    }
    if (part == LayerPart::Attention)
        return;
    expectFeedForward(lw.feedForward, config, c, layer + " feed-forward");
    expectNorm(lw.feedForwardNorm, config.normKind, D, layer + " feed-forward");
    expectOutputNorm(lw.feedForwardOutputNorm, config.feedForwardNorms, config.normKind, D,
                     layer + " feed-forward");
}

std::shared_ptr<const MultiHeadAttention> TransformerModel::attentionModule(int layer,
                                                                            Block block) const
{
    const bool decoder = block != Block::Self;
    const Stack& stack = stackFor(decoder);
    if (stack.weights && layer >= 0 && layer < layerCount(decoder)) {
        std::shared_ptr<const ModelLayer> built = this->layer(decoder, layer, LayerPart::Attention);
        if (const MultiHeadAttention* module = built->module(block))
            return {built, module};
    }
    throw InputError(std::string("The model has no ") + blockName(block) + " attention in layer " +
                     std::to_string(layer) + ".");
}

void TransformerModel::checkIds(const std::vector<int>& ids, const char* what) const
{
    if (ids.empty())
        throw InputError(std::string("The ") + what +
                         " is empty; the model needs at least one token.");
    if (ids.size() > static_cast<std::size_t>(m_config.maxLength))
        throw InputError(std::string("The ") + what + " has " + std::to_string(ids.size()) +
                         " tokens; this model takes at most " + std::to_string(m_config.maxLength) +
                         " (max_length).");
    for (const int id : ids)
        if (id < 0 || id >= m_config.vocabSize)
            throw InputError(std::string("The ") + what + " holds token id " + std::to_string(id) +
                             ", outside the vocabulary of " + std::to_string(m_config.vocabSize) +
                             ".");
}

void TransformerModel::checkAblation(const Ablation& ablation) const
{
    // From the configuration, not the modules: a streamed model would load a layer per head.
    for (const Ablation::Head& h : ablation.heads) {
        const std::vector<Block> blocks = attentionBlocksOfLayer(m_config, h.layer);
        if (std::ranges::find(blocks, h.block) == blocks.end())
            throw InputError(std::string("The model has no ") + blockName(h.block) +
                             " attention in layer " + std::to_string(h.layer) + ".");
        const int heads = attentionDescription(m_config, h.layer, h.block).queryHeads;
        if (h.head < 0 || h.head >= heads)
            throw InputError("Head " + std::to_string(h.head) + " of layer " +
                             std::to_string(h.layer) +
                             " cannot be switched off; the model has heads 0–" +
                             std::to_string(heads - 1) + ".");
    }
}

ModelTrace TransformerModel::forward(const std::vector<int>& source,
                                     const std::vector<int>& target) const
{
    return forward(ModelInput{source, {}, target});
}

ModelTrace TransformerModel::forward(const ModelInput& input, const CapturePolicy& policy,
                                     const Ablation& ablation) const
{
    checkAblation(ablation);
    ModelTrace trace;
    const TensorVisitor& observe = policy.observer;
    if (m_config.image)
        return forwardImage(input, policy, ablation);
    if (input.pixels.rank())
        throw InputError("This model reads text; a picture needs a Vision Transformer.");
    if (m_config.hasEncoder()) {
        checkIds(input.source, "source text");
        if (!input.sourceTypes.empty()) {
            if (input.sourceTypes.size() != input.source.size())
                throw InputError("There are " + std::to_string(input.sourceTypes.size()) +
                                 " token types for " + std::to_string(input.source.size()) +
                                 " tokens; expected one per token.");
            for (const int t : input.sourceTypes)
                if (t < 0 || t >= std::max(m_config.tokenTypes, 1))
                    throw InputError("Token type " + std::to_string(t) +
                                     " does not exist; the model has " +
                                     std::to_string(std::max(m_config.tokenTypes, 1)) + ".");
        }
    }
    if (m_config.hasDecoder())
        checkIds(input.target, m_config.hasEncoder() ? "target text" : "text");
    if (!m_config.hasEncoder() && !input.source.empty())
        throw InputError(
            "A decoder-only model reads only the text; it has no encoder for a source.");
    if (!m_config.hasDecoder() && !input.target.empty())
        throw InputError(
            "An encoder-only model reads only the text; it has no decoder for a target.");

    if (m_config.hasEncoder()) {
        trace.sourceIds = input.source;
        trace.encoder.emplace();
        embed(m_encoder, input.source, input.sourceTypes, *trace.encoder);
        runStack(m_encoder, nullptr, false, policy, ablation, *trace.encoder);
    }
    if (!m_config.hasDecoder())
        return trace;
    trace.targetIds = input.target;
    trace.decoder.emplace();
    embed(m_decoder, input.target, {}, *trace.decoder);
    runStack(m_decoder, trace.encoder ? &trace.encoder->output : nullptr, true, policy, ablation,
             *trace.decoder);
    computeLogits(trace.decoder->output, policy.allLogits, trace.logits);
    if (observe)
        observe("decoder.logits", trace.logits);
    return trace;
}

ModelTrace TransformerModel::forwardWithCache(const ModelInput& input, DecoderCache& cache,
                                              const CapturePolicy& policy,
                                              const Ablation& ablation) const
{
    if (!m_config.hasDecoder())
        throw InputError("An encoder-only model has no decoder to read a KV cache.");
    checkAblation(ablation);
    const std::int64_t n = cache.tokens();
    checkIds(input.target, n == 0 ? "text" : "new text");
    if (n + std::ssize(input.target) > m_config.maxLength)
        throw InputError("The KV cache holds " + std::to_string(n) + " tokens and " +
                         std::to_string(input.target.size()) + " more would pass this model's " +
                         std::to_string(m_config.maxLength) + " (max_length).");
    if (m_config.hasEncoder() && n == 0)
        checkIds(input.source, "source text");
    else if (!input.source.empty())
        throw InputError(m_config.hasEncoder()
                             ? "A cached step reads the encoder's output from the cache; expected "
                               "no source after the first step."
                             : "A decoder-only model reads only the text; it has no encoder for a "
                               "source.");

    // Worked on a copy, so that a step refused half-way leaves the cache as it was.
    DecoderCache working = cache;
    working.layers.resize(static_cast<std::size_t>(m_config.decoderLayers));
    ModelTrace trace;
    if (m_config.hasEncoder() && n == 0) {
        trace.sourceIds = input.source;
        trace.encoder.emplace();
        embed(m_encoder, input.source, {}, *trace.encoder);
        runStack(m_encoder, nullptr, false, policy, ablation, *trace.encoder);
        working.memory = trace.encoder->output;
    }
    trace.targetIds = input.target;
    trace.decoder.emplace();
    embed(m_decoder, input.target, {}, *trace.decoder, n);
    runStack(m_decoder, working.memory.rank() ? &working.memory : nullptr, true, policy, ablation,
             *trace.decoder, &working);
    computeLogits(trace.decoder->output, policy.allLogits, trace.logits);
    if (policy.observer)
        policy.observer("decoder.logits", trace.logits);
    cache = std::move(working);
    return trace;
}

ModelTrace TransformerModel::forwardImage(const ModelInput& input, const CapturePolicy& policy,
                                          const Ablation& ablation) const
{
    if (!input.source.empty() || !input.target.empty() || !input.pixels.rank())
        throw InputError("A Vision Transformer reads a picture, not token ids.");
    checkPixels(input.pixels, m_config);
    ModelTrace trace;
    trace.pixels = input.pixels; // small beside the trace, and what every view draws over
    if (policy.observer)
        policy.observer("pixels", trace.pixels);
    // The tokens are the CLS (and distillation) token and the patches: id i names token i.
    trace.sourceIds.resize(static_cast<std::size_t>(m_config.image->tokens()));
    std::iota(trace.sourceIds.begin(), trace.sourceIds.end(), 0);
    trace.encoder.emplace();
    StackTrace& stack = *trace.encoder;
    stack.embedding = embedImage(input.pixels, *m_weights.image, m_config);
    stack.positional = Tensor(stack.embedding.axes());
    stack.positional.matrix({0}) = m_weights.encoder.positional;
    add(stack.embedding, stack.positional, stack.input);
    try {
        requireFinite(stack.input, "input");
    } catch (const NonFiniteError& e) {
        throw e.within("encoder embeddings");
    }
    runStack(m_encoder, nullptr, false, policy, ablation, stack);
    if (m_config.image->classes > 0) {
        trace.classLogits = classifyImage(stack.output, *m_weights.image, m_config);
        if (policy.observer)
            policy.observer("logits", trace.classLogits);
    }
    return trace;
}

void TransformerModel::computeLogits(const Tensor& last, bool allPositions, Tensor& logits) const
{
    const std::int64_t tokens = last.dim(1);
    const std::int64_t rows = allPositions ? tokens : 1;
    const RowMatrix& output = m_config.tiedOutput ? m_weights.decoder.embedding : m_weights.output;
    logits = Tensor({{"batch", 1}, {"token", rows}, {"vocab", m_config.vocabSize}});
    MatrixView out = logits.matrix({0});
    if (rows == 1) // a matrix-vector product: a general product would first repack all of `output`
        out.row(0).transpose().noalias() = output * last.matrix({0}).row(tokens - 1).transpose();
    else
        out.noalias() = last.matrix({0}).bottomRows(rows) * output.transpose();
    if (m_weights.outputBias)
        out.rowwise() += *m_weights.outputBias;
    try {
        requireFinite(logits, "logits");
    } catch (const NonFiniteError& e) {
        throw e.within("decoder output");
    }
}

void TransformerModel::embed(const Stack& stack, const std::vector<int>& ids,
                             const std::vector<int>& types, StackTrace& trace,
                             std::int64_t firstPosition) const
{
    const StackWeights& w = *stack.weights;
    const auto n = static_cast<std::int64_t>(ids.size());
    const std::int64_t D = m_config.modelWidth;
    trace.embedding = tokenTensor(n, D);
    trace.positional = tokenTensor(n, D);
    const float scale = m_config.scaleEmbedding ? std::sqrt(static_cast<float>(D)) : 1.0f;
    for (std::int64_t t = 0; t < n; ++t)
        trace.embedding.matrix({0}).row(t) =
            w.embedding.row(ids[static_cast<std::size_t>(t)]) * scale;
    // Without positions, or with rotary ones (turned inside attention), zeros are added.
    if (m_config.positional == PositionalKind::Learned)
        trace.positional.matrix({0}) = w.positional.middleRows(firstPosition, n);
    else if (m_config.positional == PositionalKind::Sinusoidal)
        trace.positional.matrix({0}) =
            sinusoidalPositionalEncoding(firstPosition + n, D).bottomRows(n);
    add(trace.embedding, trace.positional, trace.input);
    if (m_config.tokenTypes > 0) {
        trace.tokenType = tokenTensor(n, D);
        for (std::int64_t t = 0; t < n; ++t)
            trace.tokenType.matrix({0}).row(t) =
                w.tokenType.row(types.empty() ? 0 : types[static_cast<std::size_t>(t)]);
        Tensor sum;
        add(trace.input, trace.tokenType, sum);
        trace.input = std::move(sum);
    }
    if (w.embeddingNorm) {
        Tensor normed;
        normaliseTokens(trace.input, *w.embeddingNorm, m_config.normKind, m_config.layerNormEps,
                        normed);
        trace.input = std::move(normed);
    }
    try {
        requireFinite(trace.input, "input");
    } catch (const NonFiniteError& e) {
        throw e.within(&stack == &m_decoder ? "decoder embeddings" : "encoder embeddings");
    }
}

void TransformerModel::runStack(const Stack& stack, const Tensor* memory, bool decoder,
                                const CapturePolicy& policy, const Ablation& ablation,
                                StackTrace& trace, DecoderCache* cache) const
{
    const std::string name = decoder ? "decoder" : "encoder";
    if (policy.observer) {
        for (const auto& [suffix, t] : {std::pair{".embedding", &trace.embedding},
                                        {".positional", &trace.positional},
                                        {".token_type", &trace.tokenType},
                                        {".input", &trace.input}})
            if (t->rank())
                policy.observer(name + suffix, *t);
    }
    if (!policy.layerTensors) { // `input` stays: layer 0 reads it
        trace.embedding = Tensor();
        trace.positional = Tensor();
        trace.tokenType = Tensor();
    }
    const StackWeights& w = *stack.weights;
    Tensor x = trace.input;
    const int layers = layerCount(decoder);
    trace.layers.resize(static_cast<std::size_t>(layers));
    // A layer computed in full only for the observer is computed into `scratch`; what the policy
    // does not keep of it goes back there for the next layer, so its score-sized tensors (200 MB
    // a layer for GPT-2 small at 1024 tokens) are allocated once a pass, not once a layer.
    LayerTrace scratch;
    for (std::size_t L = 0; L < trace.layers.size(); ++L) {
        const int layer = static_cast<int>(L);
        const bool full =
            policy.fullLayer == layer || (policy.attention.keepsAll() && policy.layerTensors);
        const bool computeAll = full || policy.observer;
        const bool observedOnly = computeAll && !full;
        LayerTrace& lt = trace.layers[L];
        LayerTrace& computed = observedOnly ? scratch : lt;
        Tensor out = runLayer(*this->layer(decoder, layer), layer, x, memory, decoder,
                              computeAll ? AttentionKeep::all() : policy.attention, ablation,
                              computed, std::nullopt, cache ? &cache->layers[L] : nullptr);
        if (policy.observer)
            forEachLayerTensor(computed, layer, policy.observer);
        if (observedOnly) {
            LayerTrace spare;
            trimLayer(scratch, policy.attention, policy.layerTensors, &spare);
            lt = std::move(scratch);
            scratch = std::move(spare);
        } else if (!full) {
            trimLayer(lt, policy.attention, policy.layerTensors);
        }
        lt.complete = full;
        x = std::move(out);
        if (policy.progress)
            policy.progress((decoder ? m_config.encoderLayers : 0) + layer + 1,
                            m_config.encoderLayers + m_config.decoderLayers);
    }
    if (w.finalNorm) {
        normaliseTokens(x, *w.finalNorm, m_config.normKind, m_config.layerNormEps, trace.finalNorm);
        if (const auto value = firstNonFinite(trace.finalNorm.data(),
                                              static_cast<std::size_t>(trace.finalNorm.size())))
            throw NonFiniteError("final_norm", *value, name);
        trace.output = trace.finalNorm;
        if (policy.observer)
            policy.observer(name + ".final_norm", trace.finalNorm);
        if (!policy.layerTensors)
            trace.finalNorm = Tensor();
    } else {
        trace.output = std::move(x);
    }
}

Tensor TransformerModel::runLayer(const ModelLayer& built, int layer, const Tensor& x,
                                  const Tensor* memory, bool decoder, const AttentionKeep& keep,
                                  const Ablation& ablation, LayerTrace& lt,
                                  std::optional<Block> stopAfter, KeyValueCache* cache) const
{
    const LayerWeights& lw = built.weights;
    const LayerConfig& config = built.config;
    const float eps = m_config.layerNormEps;
    lt.input = x;
    const Tensor* current = &lt.input;
    lt.attention.resize(lw.attention.size());
    for (std::size_t a = 0; a < lw.attention.size(); ++a) {
        AttentionBlockTrace& at = lt.attention[a];
        at.block = lw.attention[a].block;
        const MultiHeadAttention& module = built.attention[a];
        const AttentionOptions options{keep, ablation.headsOf(layer, at.block), {}};
        const AttentionSublayerWeights& aw = lw.attention[a];
        try {
            current = &residualBlock(
                *current, config.attention[a].norms, config.normKind, eps, aw.norm,
                aw.outputNorm ? &*aw.outputNorm : nullptr, {at.norm, at.outputNorm, at.residual},
                [&](const Tensor& in) -> const Tensor& {
                    if (at.block == Block::Cross)
                        module.forward(in, *memory, *memory, {}, at.attention, options);
                    else if (cache && at.block == Block::MaskedSelf)
                        module.forwardWithCache(in, *cache, at.attention, options);
                    else
                        module.forward(in, in, in, {}, at.attention, options);
                    return at.attention.output;
                });
        } catch (const NonFiniteError& e) {
            throw e.within(blockPlace(decoder, layer, at.block));
        }
        if (stopAfter == at.block) {
            lt.attention.resize(a + 1);
            return *current;
        }
    }
    FeedForwardBlockTrace& ft = lt.feedForward;
    ft.block = decoder ? Block::DecoderFeedForward : Block::EncoderFeedForward;
    try {
        current = &residualBlock(
            *current, config.feedForwardNorms, config.normKind, eps, lw.feedForwardNorm,
            lw.feedForwardOutputNorm ? &*lw.feedForwardOutputNorm : nullptr,
            {ft.norm, ft.outputNorm, ft.residual}, [&](const Tensor& in) -> const Tensor& {
                FeedForwardTrace& f = ft.feedForward;
                feedForward(in, lw.feedForward, config.feedForward, config.activation, f);
                if (f.gatePre.rank())
                    requireFinite(f.gatePre, "gate_pre");
                requireFinite(f.hiddenPre, "hidden_pre");
                requireFinite(f.hidden, "hidden");
                requireFinite(f.output, "output");
                return f.output;
            });
    } catch (const NonFiniteError& e) {
        throw e.within(blockPlace(decoder, layer, ft.block));
    }
    return *current;
}

LayerTrace TransformerModel::recomputeLayer(const ModelTrace& trace, Block block, int layer,
                                            const Ablation& ablation) const
{
    LayerTrace out = recompute(trace, block, layer, ablation, std::nullopt);
    out.complete = true;
    return out;
}

LayerTrace TransformerModel::recomputeAttention(const ModelTrace& trace, Block block, int layer,
                                                const Ablation& ablation) const
{
    if (!isAttention(block))
        throw InputError(std::string("The ") + blockName(block) + " block is not attention.");
    return recompute(trace, block, layer, ablation, block);
}

LayerTrace TransformerModel::recompute(const ModelTrace& trace, Block block, int layer,
                                       const Ablation& ablation,
                                       std::optional<Block> stopAfter) const
{
    checkAblation(ablation);
    const StackTrace* stack = trace.stackOf(block);
    if (!stack || layer < 0 || layer >= static_cast<int>(stack->layers.size()))
        throw InputError(std::string("The trace has no layer ") + std::to_string(layer) + " with " +
                         blockName(block) + ".");
    const bool decoder = stack == (trace.decoder ? &*trace.decoder : nullptr);
    const Tensor* memory = decoder && trace.encoder ? &trace.encoder->output : nullptr;
    LayerTrace out;
    // Stopping after an attention block, the pass never reaches the feed-forward weights.
    runLayer(*this->layer(decoder, layer, stopAfter ? LayerPart::Attention : LayerPart::Whole),
             layer, stack->layers[static_cast<std::size_t>(layer)].input, memory, decoder,
             AttentionKeep::all(), ablation, out, stopAfter);
    return out;
}

} // namespace attnviz::engine
