#pragma once

#include "engine/tensor.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace attnviz::engine {

/// The intermediates of one multi-head attention forward pass, in the order they are computed.
/// Their names are stable: views, dumps, exports and tests all use them.
enum class AttentionStep {
    QProj,   ///< q_proj  [batch, query, feature]  X_q W_qᵀ + b_q
    KProj,   ///< k_proj  [batch, key, feature]    X_k W_kᵀ + b_k
    VProj,   ///< v_proj  [batch, key, feature]    X_v W_vᵀ + b_v
    QHeads,  ///< q_heads [batch, head, query, d_k]
    KHeads,  ///< k_heads [batch, head, key, d_k]
    VHeads,  ///< v_heads [batch, head, key, d_v]
    Scores,  ///< scores  [batch, head, query, key]  Q_h K_hᵀ
    Scaled,  ///< scaled  [batch, head, query, key]  scores / √d_k
    Masked,  ///< masked  [batch, head, query, key]  scaled, −∞ where blocked
    Weights, ///< weights [batch, head, query, key]  softmax over keys
    Context, ///< context [batch, head, query, d_v]  weights · V_h
    Concat,  ///< concat  [batch, query, feature]    heads side by side
    Output,  ///< output  [batch, query, feature]    concat W_oᵀ + b_o
};

inline constexpr std::array kAttentionSteps = {
    AttentionStep::QProj,  AttentionStep::KProj,   AttentionStep::VProj,   AttentionStep::QHeads,
    AttentionStep::KHeads, AttentionStep::VHeads,  AttentionStep::Scores,  AttentionStep::Scaled,
    AttentionStep::Masked, AttentionStep::Weights, AttentionStep::Context, AttentionStep::Concat,
    AttentionStep::Output,
};

/// "q_proj", "weights", ...
std::string_view stepName(AttentionStep step);

/// A query row whose keys are all blocked; its weights and context are zero (never NaN).
struct MaskedRow {
    std::int64_t batch = 0;
    std::int64_t query = 0;
    bool operator==(const MaskedRow&) const = default;
};

/// Every intermediate of one multi-head attention forward pass, one named tensor a step (the
/// llm.c habit: the activations are a plain struct). A trace is immutable once computed; the
/// engine may refill an old one to reuse its memory. Per-head matrices are views into the step's
/// tensor: `trace.weights.matrix({batch, head})` copies nothing.
struct AttentionTrace {
    Tensor qProj, kProj, vProj;
    Tensor qHeads, kHeads, vHeads;
    Tensor scores, scaled, masked, weights;
    Tensor context, concat, output;
    /// Query rows with every key blocked, in (batch, query) order.
    std::vector<MaskedRow> fullyMaskedRows;

    Tensor& step(AttentionStep step);
    const Tensor& step(AttentionStep step) const;

    std::int64_t batchSize() const { return output.rank() ? output.dim(0) : 0; }
    std::int64_t numHeads() const { return weights.rank() ? weights.dim(1) : 0; }
    std::int64_t queryLength() const { return weights.rank() ? weights.dim(2) : 0; }
    std::int64_t keyLength() const { return weights.rank() ? weights.dim(3) : 0; }
};

} // namespace attnviz::engine
