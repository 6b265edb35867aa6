#pragma once

#include "engine/model_config.h"
#include "engine/tensor.h"

namespace attnviz::engine {

/// Learned scale and shift of a norm, one value a feature.
struct LayerNormWeights {
    Eigen::RowVectorXf gain; ///< [D]  (PyTorch: weight)
    Eigen::RowVectorXf bias; ///< [D]; empty for a LayerNorm without bias and for RMSNorm
};

/// LayerNorm over the feature axis of every row: (x − mean) / √(var + eps) · gain + bias, with the
/// biased variance (as PyTorch); without the `+ bias` when the bias is empty. Accumulates in
/// double so long rows lose nothing.
void layerNorm(ConstMatrixView x, const LayerNormWeights& w, float eps, MatrixView out);

/// RMSNorm (Zhang & Sennrich 2019) over the feature axis of every row: x / √(mean(x²) + eps) ·
/// gain. As Hugging Face's LlamaRMSNorm: normalised in high precision (double here), rounded to
/// float, then multiplied by the gain.
void rmsNorm(ConstMatrixView x, const Eigen::RowVectorXf& gain, float eps, MatrixView out);

/// The norm of kind `kind` (LayerNorm with or without bias, RMSNorm, or RMSNorm with Gemma's
/// gain 1 + w) over every row.
void normalise(NormKind kind, ConstMatrixView x, const LayerNormWeights& w, float eps,
               MatrixView out);

} // namespace attnviz::engine
