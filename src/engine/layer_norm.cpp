#include "engine/layer_norm.h"

#include <cmath>

namespace attnviz::engine {

void layerNorm(ConstMatrixView x, const LayerNormWeights& w, float eps, MatrixView out)
{
    const Eigen::Index width = x.cols();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const auto row = x.row(r).cast<double>();
        const double mean = row.mean();
        const double variance = (row.array() - mean).square().sum() / static_cast<double>(width);
        const double inverse = 1.0 / std::sqrt(variance + static_cast<double>(eps));
        out.row(r) =
            (((row.array() - mean) * inverse).cast<float>() * w.gain.array() + w.bias.array())
                .matrix();
    }
}

} // namespace attnviz::engine
