#pragma once

#include "engine/tensor.h"

namespace attnviz::engine {

/// Learned scale and shift of a LayerNorm, one value a feature.
struct LayerNormWeights {
    Eigen::RowVectorXf gain; ///< [D]  (PyTorch: weight)
    Eigen::RowVectorXf bias; ///< [D]
};

/// LayerNorm over the feature axis of every row: (x − mean) / √(var + eps) · gain + bias, with the
/// biased variance (as PyTorch). Accumulates in double so long rows lose nothing.
void layerNorm(ConstMatrixView x, const LayerNormWeights& w, float eps, MatrixView out);

} // namespace attnviz::engine
