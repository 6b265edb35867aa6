#pragma once

#include "engine/model_config.h"
#include "engine/tensor.h"

#include <optional>
#include <span>

namespace attnviz::engine {

/// The position-wise feed-forward block, laid out as PyTorch `nn.Linear`s: W [out, in]. A gated
/// block (FeedForwardKind::Gated) has a third matrix: w1 is then Llama's up_proj, gate its
/// gate_proj and w2 its down_proj.
struct FeedForwardWeights {
    RowMatrix w1; ///< [d_ff, D]
    RowMatrix w2; ///< [D, d_ff]
    RowMatrix gate; ///< [d_ff, D] in a gated block; empty otherwise
    std::optional<Eigen::RowVectorXf> b1; ///< [d_ff]
    std::optional<Eigen::RowVectorXf> b2; ///< [D]
    std::optional<Eigen::RowVectorXf> bGate; ///< [d_ff], gated blocks only
};

/// Its intermediates, `[batch, token, feature]`.
struct FeedForwardTrace {
    Tensor gatePre; ///< gate_pre = x W_gateᵀ + b_gate (gated blocks only; empty otherwise)
    Tensor hiddenPre; ///< hidden_pre = x W1ᵀ + b1 (a gated block's up projection)
    /// hidden = activation(hidden_pre); gated: activation(gate_pre) ⊙ hidden_pre
    Tensor hidden;
    Tensor output; ///< output = hidden W2ᵀ + b2
};

/// Runs the block of kind `kind` on every row of `x [batch, token, D]`.
void feedForward(const Tensor& x, const FeedForwardWeights& w, FeedForwardKind kind,
                 Activation activation, FeedForwardTrace& trace);

/// ReLU, exact GELU (x·Φ(x), with erf), the tanh approximation of GELU or SiLU (x·σ(x)),
/// applied in place.
void applyActivation(Activation activation, std::span<float> values);

} // namespace attnviz::engine
