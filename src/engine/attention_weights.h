#pragma once

#include "engine/tensor.h"

#include <optional>

namespace attnviz::engine {

/// The four projections of a multi-head attention module, laid out as PyTorch `nn.Linear`:
/// `W [out, in]`, `y = x Wᵀ + b`. Head i owns rows `[i·P, (i+1)·P)` of w_q, w_k (P = Pqk) and of
/// w_v (P = Pv); w_o reads the concatenated heads.
struct AttentionWeights {
    RowMatrix wQ; ///< [H·Pqk, Dq]
    RowMatrix wK; ///< [H·Pqk, Dk]
    RowMatrix wV; ///< [H·Pv, Dv]
    RowMatrix wO; ///< [Po, H·Pv]
    std::optional<Eigen::RowVectorXf> bQ; ///< [H·Pqk]
    std::optional<Eigen::RowVectorXf> bK; ///< [H·Pqk]
    std::optional<Eigen::RowVectorXf> bV; ///< [H·Pv]
    std::optional<Eigen::RowVectorXf> bO; ///< [Po]
};

} // namespace attnviz::engine
