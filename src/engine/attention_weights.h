#pragma once

#include "engine/tensor.h"

#include <optional>

namespace attnviz::engine {

/// The learned numbers of a multi-head attention module, the projections laid out as PyTorch
/// `nn.Linear`: `W [out, in]`, `y = x Wᵀ + b`. Query head h owns rows `[h·Pqk, (h+1)·Pqk)` of
/// w_q; K/V head g owns rows `[g·Pqk, (g+1)·Pqk)` of w_k and `[g·Pv, (g+1)·Pv)` of w_v (H_kv = H
/// without grouped K/V heads); w_o reads the H query heads' contexts concatenated.
struct AttentionWeights {
    RowMatrix wQ; ///< [H·Pqk, Dq]
    RowMatrix wK; ///< [H_kv·Pqk, Dk]
    RowMatrix wV; ///< [H_kv·Pv, Dv]
    RowMatrix wO; ///< [Po, H·Pv]
    std::optional<Eigen::RowVectorXf> bQ; ///< [H·Pqk]
    std::optional<Eigen::RowVectorXf> bK; ///< [H_kv·Pqk]
    std::optional<Eigen::RowVectorXf> bV; ///< [H_kv·Pv]
    std::optional<Eigen::RowVectorXf> bO; ///< [Po]
    /// The gains of QK-norm (AttentionDescription::queryKeyNorm): [Pqk] each, shared by every
    /// head, for a norm per head; [H·Pqk] and [H_kv·Pqk] for a norm of the whole projection.
    std::optional<Eigen::RowVectorXf> qNorm;
    std::optional<Eigen::RowVectorXf> kNorm;
    /// One learned sink logit per query head (AttentionDescription::learnedSinks): [H].
    std::optional<Eigen::RowVectorXf> sinks;
};

} // namespace attnviz::engine
