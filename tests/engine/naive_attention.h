#pragma once

#include "engine/attention_mask.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"

namespace attnviz::test {

/// Multi-head attention written as plain loops in double precision, one formula at a time, with
/// none of the engine's blocking, threading or Eigen products and its own reading of the masks.
/// Deliberately slow and obvious: it is the yardstick the optimised engine is measured against.
/// The scores are divided by `divisor`, or by √d_k when it is 0.
/// y[b, n, o] = Σ_d x[b, n, d] · w[o, d] + bias[o], in double.
engine::Tensor naiveLinear(const engine::Tensor& x, const engine::RowMatrix& w,
                           const std::optional<Eigen::RowVectorXf>& bias, const char* tokens);
/// [B, N, heads·P] → [B, heads, N, P]: head h owns feature columns [h·P, (h+1)·P).
engine::Tensor naiveSplit(const engine::Tensor& x, std::int64_t heads, const char* tokens,
                          const char* feature);

engine::AttentionTrace naiveAttention(const engine::Tensor& query, const engine::Tensor& key,
                                      const engine::Tensor& value,
                                      const engine::AttentionWeights& weights, int heads,
                                      const engine::AttentionMask& mask, double divisor = 0);

} // namespace attnviz::test
