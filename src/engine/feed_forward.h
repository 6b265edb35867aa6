#pragma once

#include "engine/model_config.h"
#include "engine/tensor.h"

#include <optional>
#include <span>

namespace attnviz::engine {

/// The position-wise feed-forward block, laid out as two PyTorch `nn.Linear`: W [out, in].
struct FeedForwardWeights {
    RowMatrix w1; ///< [d_ff, D]
    RowMatrix w2; ///< [D, d_ff]
    std::optional<Eigen::RowVectorXf> b1; ///< [d_ff]
    std::optional<Eigen::RowVectorXf> b2; ///< [D]
};

/// Its intermediates, `[batch, token, feature]`.
struct FeedForwardTrace {
    Tensor hiddenPre; ///< hidden_pre = x W1ᵀ + b1
    Tensor hidden; ///< hidden = activation(hidden_pre)
    Tensor output; ///< output = hidden W2ᵀ + b2
};

/// Runs the block on every row of `x [batch, token, D]`.
void feedForward(const Tensor& x, const FeedForwardWeights& w, Activation activation,
                 FeedForwardTrace& trace);

/// ReLU, exact GELU (x·Φ(x), with erf) or the tanh approximation of GELU, applied in place.
void applyActivation(Activation activation, std::span<float> values);

} // namespace attnviz::engine
