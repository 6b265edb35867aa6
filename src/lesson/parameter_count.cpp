#include "lesson/parameter_count.h"

#include "engine/key_value_cache.h"

#include <numeric>

namespace attnviz::lesson {
namespace {

std::int64_t size(const std::optional<Eigen::RowVectorXf>& v)
{
    return v ? v->size() : 0;
}

std::int64_t size(const engine::RowMatrix& m)
{
    return m.size();
}

std::int64_t size(const Eigen::RowVectorXf& v)
{
    return v.size();
}

std::int64_t size(const engine::LayerNormWeights& n)
{
    return n.gain.size() + n.bias.size();
}

std::int64_t size(const std::optional<engine::LayerNormWeights>& n)
{
    return n ? size(*n) : 0;
}

std::vector<std::int64_t> layerCounts(const engine::ModelConfig& c, bool decoder)
{
    std::vector<std::int64_t> out;
    const int layers =
        decoder ? (c.hasDecoder() ? c.decoderLayers : 0) : (c.hasEncoder() ? c.encoderLayers : 0);
    for (int L = 0; L < layers; ++L)
        out.push_back(engine::layerParameterCount(c, decoder, L));
    return out;
}

std::int64_t embeddingCount(const engine::StackWeights& stack)
{
    return size(stack.embedding) + size(stack.positional) + size(stack.tokenType) +
        size(stack.embeddingNorm);
}

} // namespace

std::vector<MatrixParameters> attentionParameters(const engine::AttentionWeights& w)
{
    const auto matrix = [](const char* name, const engine::RowMatrix& m,
                           const std::optional<Eigen::RowVectorXf>& b) {
        return MatrixParameters{name, m.rows(), m.cols(), size(b)};
    };
    return {matrix("W_q", w.wQ, w.bQ), matrix("W_k", w.wK, w.bK), matrix("W_v", w.wV, w.bV),
            matrix("W_o", w.wO, w.bO)};
}

std::int64_t totalParameters(const std::vector<MatrixParameters>& matrices)
{
    return std::accumulate(matrices.begin(), matrices.end(), std::int64_t{0},
                           [](std::int64_t n, const MatrixParameters& m) { return n + m.total(); });
}

std::int64_t totalWeights(const std::vector<MatrixParameters>& matrices)
{
    return std::accumulate(
        matrices.begin(), matrices.end(), std::int64_t{0},
        [](std::int64_t n, const MatrixParameters& m) { return n + m.weights(); });
}

std::int64_t ModelParameters::total() const
{
    return embeddings +
        std::accumulate(encoderLayers.begin(), encoderLayers.end(), std::int64_t{0}) +
        std::accumulate(decoderLayers.begin(), decoderLayers.end(), std::int64_t{0}) + finalNorms +
        output;
}

ModelParameters modelParameters(const engine::TransformerModel& model)
{
    const engine::ModelWeights& w = model.weights();
    ModelParameters p;
    // An encoder-decoder shares nothing between its stacks' embeddings: each is counted.
    p.embeddings = embeddingCount(w.encoder) + embeddingCount(w.decoder);
    p.encoderLayers = layerCounts(model.config(), false);
    p.decoderLayers = layerCounts(model.config(), true);
    p.finalNorms = size(w.encoder.finalNorm) + size(w.decoder.finalNorm);
    p.output = size(w.output) + size(w.outputBias);
    if (const auto& image = w.image) {
        // A Vision Transformer's patch projection and first tokens embed; its heads output.
        p.embeddings += size(image->patchProjection) + size(image->patchBias) +
            size(image->clsToken) + size(image->distillationToken);
        p.output += size(image->classifier) + size(image->classifierBias) +
            size(image->distillationClassifier) + size(image->distillationClassifierBias);
    }
    return p;
}

std::int64_t keyValueCacheValuesPerToken(const engine::ModelConfig& c)
{
    const std::int64_t layers = c.hasDecoder() ? c.decoderLayers : 0;
    return engine::kvCacheBytes(1, layers, c.keyValueHeads(), c.headSize(), c.headSize(), 1);
}

std::string groupedNumber(std::int64_t n)
{
    std::string digits = std::to_string(n < 0 ? -n : n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return (n < 0 ? "-" : "") + digits;
}

} // namespace attnviz::lesson
