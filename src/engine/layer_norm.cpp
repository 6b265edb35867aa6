#include "engine/layer_norm.h"

#include <cmath>

namespace attnviz::engine {

void layerNorm(ConstMatrixView x, const LayerNormWeights& w, float eps, MatrixView out)
{
    const Eigen::Index width = x.cols();
    const bool biased = w.bias.size() > 0;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const auto row = x.row(r).cast<double>();
        const double mean = row.mean();
        const double variance = (row.array() - mean).square().sum() / static_cast<double>(width);
        const double inverse = 1.0 / std::sqrt(variance + static_cast<double>(eps));
        const auto scaled = ((row.array() - mean) * inverse).cast<float>() * w.gain.array();
        if (biased)
            out.row(r) = (scaled + w.bias.array()).matrix();
        else
            out.row(r) = scaled.matrix();
    }
}

void rmsNorm(ConstMatrixView x, const Eigen::RowVectorXf& gain, float eps, MatrixView out)
{
    const Eigen::Index width = x.cols();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const auto row = x.row(r).cast<double>();
        const double meanSquare = row.squaredNorm() / static_cast<double>(width);
        const double inverse = 1.0 / std::sqrt(meanSquare + static_cast<double>(eps));
        out.row(r) = ((row.array() * inverse).cast<float>() * gain.array()).matrix();
    }
}

void normalise(NormKind kind, ConstMatrixView x, const LayerNormWeights& w, float eps,
               MatrixView out)
{
    if (kind == NormKind::RmsNorm)
        rmsNorm(x, w.gain, eps, out);
    else if (kind == NormKind::RmsNormUnitOffset)
        rmsNorm(x, (w.gain.array() + 1.0f).matrix(), eps, out);
    else
        layerNorm(x, w, eps, out);
}

} // namespace attnviz::engine
