#pragma once

#include "engine/attention_mask.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"

#include <optional>
#include <vector>

namespace attnviz::engine {

/// How a forward pass runs beyond its inputs: which intermediates to keep, and which heads to
/// switch off (D2L 10.3's head-importance exercise: an ablated head's context is still computed
/// and kept, but its columns of the concatenation are zero, so the output and everything after
/// it no longer hear from that head).
struct AttentionOptions {
    AttentionKeep keep = AttentionKeep::all();
    std::vector<int> ablatedHeads;
    /// What the scores are divided by before the mask and the softmax: √Pqk when unset (the
    /// scaled dot product); any positive number for the scaling experiment (1: no scaling; a
    /// larger one flattens the softmax, a smaller one sharpens it).
    std::optional<float> scoreDivisor;
};

/// General multi-head attention (D2L 10.3; Vaswani et al. 3.2.2) that keeps every intermediate.
///
/// Head i computes `softmax(mask(Q_i K_iᵀ / √Pqk)) V_i` on its own slice of the projected
/// features; the heads are concatenated and projected by w_o. Query, key and value may come from
/// different sequences of different widths (cross-attention); self-attention passes one tensor
/// three times. The sizes Pqk, Pv and Po follow from the weights, so they may all differ.
class MultiHeadAttention {
public:
    /// Checks that the weights describe a module with `numHeads` heads; throws InputError with a
    /// sentence naming the offending weight otherwise.
    MultiHeadAttention(AttentionWeights weights, int numHeads);

    int numHeads() const { return m_numHeads; }
    Eigen::Index queryInputSize() const { return m_weights.wQ.cols(); } ///< Dq
    Eigen::Index keyInputSize() const { return m_weights.wK.cols(); } ///< Dk
    Eigen::Index valueInputSize() const { return m_weights.wV.cols(); } ///< Dv
    Eigen::Index queryKeySize() const { return m_weights.wQ.rows() / m_numHeads; } ///< Pqk
    Eigen::Index valueSize() const { return m_weights.wV.rows() / m_numHeads; } ///< Pv
    Eigen::Index outputSize() const { return m_weights.wO.rows(); } ///< Po
    const AttentionWeights& weights() const { return m_weights; }

    /// Runs the module on `query [B, Nq, Dq]`, `key [B, Nk, Dk]`, `value [B, Nk, Dv]` and fills
    /// `trace` with the intermediates `options.keep` asks for (and always `output`), reusing its
    /// memory where the shapes allow. Throws InputError, before touching the trace, when the
    /// inputs, the mask or the ablated heads do not fit the module.
    void forward(const Tensor& query, const Tensor& key, const Tensor& value,
                 const AttentionMask& mask, AttentionTrace& trace,
                 const AttentionOptions& options = {}) const;

    /// Convenience for callers that do not keep a trace around.
    AttentionTrace forward(const Tensor& query, const Tensor& key, const Tensor& value,
                           const AttentionMask& mask = {},
                           const AttentionOptions& options = {}) const;

private:
    AttentionWeights m_weights;
    int m_numHeads = 0;
};

} // namespace attnviz::engine
