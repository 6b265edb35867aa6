#include "engine/transformer_model.h"

#include "engine/input_error.h"
#include "engine/layer_norm.h"
#include "engine/positional_encoding.h"

#include <cmath>
#include <stdexcept>

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

void normalise(const Tensor& x, const LayerNormWeights& w, float eps, Tensor& out)
{
    out.reshape(x.axes());
    const auto rows = x.dim(0) * x.dim(1);
    layerNorm(ConstMatrixView(x.data(), rows, x.dim(2)), w, eps, MatrixView(out.data(), rows, x.dim(2)));
}

// Residual connection and LayerNorm around a sublayer: pre-norm x + f(LN(x)), post-norm
// LN(x + f(x)). Returns the block's output.
template <typename Sublayer>
const Tensor& residualBlock(const Tensor& x, const LayerNormWeights& norm, const ModelConfig& c, Tensor& normOut,
                            Tensor& residualOut, Sublayer&& sublayer)
{
    if (c.norm == NormPosition::Pre) {
        normalise(x, norm, c.layerNormEps, normOut);
        add(x, sublayer(normOut), residualOut);
        return residualOut;
    }
    add(x, sublayer(x), residualOut);
    normalise(residualOut, norm, c.layerNormEps, normOut);
    return normOut;
}

} // namespace

TransformerModel::TransformerModel(ModelConfig config, ModelWeights weights, Vocabulary vocabulary)
    : m_config(std::move(config))
    , m_weights(std::move(weights))
    , m_vocabulary(std::move(vocabulary))
{
    checkConfig(m_config);
    if (m_vocabulary.size() != m_config.vocabSize)
        throw InputError("The vocabulary has " + std::to_string(m_vocabulary.size()) + " tokens but config.json says vocab_size " +
                         std::to_string(m_config.vocabSize) + ".");
    const auto build = [&](StackWeights& stackWeights, Stack& stack) {
        stack.weights = &stackWeights;
        for (LayerWeights& layer : stackWeights.layers) {
            std::vector<MultiHeadAttention> modules;
            for (AttentionSublayerWeights& a : layer.attention)
                modules.emplace_back(std::move(a.attention), m_config.numHeads);
            stack.attention.push_back(std::move(modules));
        }
    };
    if (m_config.hasEncoder())
        build(m_weights.encoder, m_encoder);
    if (m_config.hasDecoder())
        build(m_weights.decoder, m_decoder);
}

const MultiHeadAttention& TransformerModel::attentionModule(int layer, Block block) const
{
    const Stack& stack = block == Block::Self ? m_encoder : m_decoder;
    const auto& layerModules = stack.attention.at(static_cast<std::size_t>(layer));
    const auto& layerWeights = stack.weights->layers.at(static_cast<std::size_t>(layer));
    for (std::size_t a = 0; a < layerWeights.attention.size(); ++a)
        if (layerWeights.attention[a].block == block)
            return layerModules[a];
    throw std::out_of_range("no such attention block");
}

void TransformerModel::checkIds(const std::vector<int>& ids, const char* what) const
{
    if (ids.empty())
        throw InputError(std::string("The ") + what + " is empty; the model needs at least one token.");
    if (static_cast<int>(ids.size()) > m_config.maxLength)
        throw InputError(std::string("The ") + what + " has " + std::to_string(ids.size()) +
                         " tokens; this model takes at most " + std::to_string(m_config.maxLength) + " (max_length).");
    for (const int id : ids)
        if (id < 0 || id >= m_config.vocabSize)
            throw InputError(std::string("The ") + what + " holds token id " + std::to_string(id) +
                             ", outside the vocabulary of " + std::to_string(m_config.vocabSize) + ".");
}

ModelTrace TransformerModel::forward(const std::vector<int>& source, const std::vector<int>& target) const
{
    ModelTrace trace;
    if (m_config.hasEncoder()) {
        checkIds(source, "source text");
        trace.sourceTokens = m_vocabulary.tokens(source);
        trace.encoder.emplace();
        runStack(m_encoder, source, nullptr, false, *trace.encoder);
    }
    if (!m_config.hasDecoder())
        return trace;
    checkIds(target, m_config.hasEncoder() ? "target text" : "text");
    trace.targetTokens = m_vocabulary.tokens(target);
    const Tensor* memory = nullptr;
    if (trace.encoder)
        memory = trace.encoder->finalNorm.rank() ? &trace.encoder->finalNorm
                                                 : &trace.encoder->layers.back().output(m_config.norm);
    trace.decoder.emplace();
    runStack(m_decoder, target, memory, true, *trace.decoder);

    const StackTrace& d = *trace.decoder;
    const Tensor& last = d.finalNorm.rank() ? d.finalNorm : d.layers.back().output(m_config.norm);
    const auto tokens = last.dim(1);
    trace.logits = Tensor({{"batch", 1}, {"token", tokens}, {"vocab", m_config.vocabSize}});
    MatrixView logits = trace.logits.matrix({0});
    logits.noalias() = last.matrix({0}) * m_weights.output.transpose();
    if (m_weights.outputBias)
        logits.rowwise() += *m_weights.outputBias;
    return trace;
}

void TransformerModel::runStack(const Stack& stack, const std::vector<int>& ids, const Tensor* memory, bool decoder,
                                StackTrace& trace) const
{
    const StackWeights& w = *stack.weights;
    const auto n = static_cast<std::int64_t>(ids.size());
    const std::int64_t D = m_config.modelWidth;
    trace.embedding = tokenTensor(n, D);
    trace.positional = tokenTensor(n, D);
    const float scale = m_config.scaleEmbedding ? std::sqrt(static_cast<float>(D)) : 1.0f;
    for (std::int64_t t = 0; t < n; ++t)
        trace.embedding.matrix({0}).row(t) = w.embedding.row(ids[static_cast<std::size_t>(t)]) * scale;
    if (m_config.positional == PositionalKind::Learned)
        trace.positional.matrix({0}) = w.positional.topRows(n);
    else if (m_config.positional == PositionalKind::Sinusoidal)
        trace.positional.matrix({0}) = sinusoidalPositionalEncoding(n, D);
    add(trace.embedding, trace.positional, trace.input);

    AttentionMask causal;
    causal.causal = true;
    const Tensor* x = &trace.input;
    trace.layers.resize(w.layers.size());
    for (std::size_t L = 0; L < w.layers.size(); ++L) {
        const LayerWeights& lw = w.layers[L];
        LayerTrace& lt = trace.layers[L];
        lt.attention.resize(lw.attention.size());
        for (std::size_t a = 0; a < lw.attention.size(); ++a) {
            AttentionBlockTrace& at = lt.attention[a];
            at.block = lw.attention[a].block;
            const MultiHeadAttention& module = stack.attention[L][a];
            x = &residualBlock(*x, lw.attention[a].norm, m_config, at.norm, at.residual, [&](const Tensor& in) -> const Tensor& {
                if (at.block == Block::Cross)
                    module.forward(in, *memory, *memory, {}, at.attention);
                else
                    module.forward(in, in, in, at.block == Block::MaskedSelf ? causal : AttentionMask{}, at.attention);
                return at.attention.output;
            });
        }
        FeedForwardBlockTrace& ft = lt.feedForward;
        ft.block = decoder ? Block::DecoderFeedForward : Block::EncoderFeedForward;
        x = &residualBlock(*x, lw.feedForwardNorm, m_config, ft.norm, ft.residual, [&](const Tensor& in) -> const Tensor& {
            feedForward(in, lw.feedForward, m_config.activation, ft.feedForward);
            return ft.feedForward.output;
        });
    }
    if (w.finalNorm)
        normalise(*x, *w.finalNorm, m_config.layerNormEps, trace.finalNorm);
}

} // namespace attnviz::engine
