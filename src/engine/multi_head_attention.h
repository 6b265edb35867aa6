#pragma once

#include "engine/attention_description.h"
#include "engine/attention_mask.h"
#include "engine/attention_stages.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/key_value_cache.h"
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
    /// Where the queries and keys sit (rotary positions and a score bias read them); 0 … N − 1
    /// unless given.
    TokenPositions positions;
    /// Which pass computes it (the tests force each one; the trace records which ran).
    AttentionPath path = AttentionPath::Automatic;
};

/// General multi-head attention (D2L 10.3; Vaswani et al. 3.2.2) that keeps every intermediate,
/// in every variant its description names: grouped K/V heads, QK-norm, rotary positions (on part
/// of each head), a score scale, soft-capping, a score bias, a causal mask with a sliding window,
/// learned sinks.
///
/// Query head h computes `softmax(mask(cap(Q_h K_gᵀ · s))) V_g` with g its K/V head, on its own
/// slice of the projected features (q and k normalised and turned by position first, when the
/// module does that); the heads are concatenated and projected by w_o. Query, key and value may
/// come from different sequences of different widths (cross-attention); self-attention passes
/// one tensor three times. Pqk, Pv and Po may all differ.
///
/// Every pass runs the stages of engine/attention_stages.h in the table's order: exactly in
/// double for small passes, fused over blocks of query rows for large ones, or stage by stage
/// over whole tensors (engine/attention_passes.h); AttentionOptions::path chooses.
class MultiHeadAttention {
public:
    /// Checks the description and that the weights have its shapes; throws InputError with a
    /// sentence naming the offending weight or field otherwise.
    MultiHeadAttention(AttentionWeights weights, AttentionDescription description);

    const AttentionDescription& description() const { return m_description; }
    int numHeads() const { return m_description.queryHeads; }
    int numKeyValueHeads() const { return m_description.keyValueHeads; }
    Eigen::Index queryInputSize() const { return m_weights.wQ.cols(); } ///< Dq
    Eigen::Index keyInputSize() const { return m_weights.wK.cols(); } ///< Dk
    Eigen::Index valueInputSize() const { return m_weights.wV.cols(); } ///< Dv
    Eigen::Index queryKeySize() const { return m_description.queryKeySize; } ///< Pqk
    Eigen::Index valueSize() const { return m_description.valueSize; } ///< Pv
    Eigen::Index outputSize() const { return m_weights.wO.rows(); } ///< Po
    const AttentionWeights& weights() const { return m_weights; }
    /// The same weights with another description (the scaling experiment's divisor, a mask):
    /// checked like a new module.
    MultiHeadAttention describedAs(AttentionDescription description) const;

    /// The mask a forward pass applies: `mask` with the module's own policy (causal, window).
    AttentionMask maskInForce(const AttentionMask& mask) const;

    /// Runs the module on `query [B, Nq, Dq]`, `key [B, Nk, Dk]`, `value [B, Nk, Dv]` and fills
    /// `trace` with the intermediates `options.keep` asks for (and always `output`), reusing its
    /// memory where the shapes allow. Throws InputError, before touching the trace, when the
    /// inputs, the mask or the ablated heads do not fit the module.
    void forward(const Tensor& query, const Tensor& key, const Tensor& value,
                 const AttentionMask& mask, AttentionTrace& trace,
                 const AttentionOptions& options = {}) const;

    /// Self-attention over `tokens [1, m, D]` that come after the ones `cache` holds (decoding
    /// with a KV cache): only the new tokens are projected (and turned, at positions n … n + m − 1
    /// after the n cached ones); their keys and values are appended to `cache`, and their queries
    /// attend over every cached key with the module's causal mask. `trace` is the pass's trace
    /// with Nq = m and Nk = n + m, its key-side steps read from the cache, so that it equals the
    /// rows n … n + m − 1 of a pass over all n + m tokens. Throws InputError, touching neither
    /// the cache nor the trace, for a module that is not causal (a query would need keys not yet
    /// read), a batch of more than one, positions in `options` (the cache sets them), or a cache
    /// of another module's shape.
    void forwardWithCache(const Tensor& tokens, KeyValueCache& cache, AttentionTrace& trace,
                          const AttentionOptions& options = {}) const;

    /// Convenience for callers that do not keep a trace around.
    AttentionTrace forward(const Tensor& query, const Tensor& key, const Tensor& value,
                           const AttentionMask& mask = {},
                           const AttentionOptions& options = {}) const;

    /// Runs the stages from `from` on over `trace`, a trace of this module on these inputs whose
    /// earlier steps are filled, with `replacements` (a common mistake), on the pass that made
    /// the trace (in double for an exact one, else stage by stage); values that stop being
    /// finite are kept. Throws InputError as forward() does.
    void rerunStagesFrom(AttentionStage from, const Tensor& query, const Tensor& key,
                         const Tensor& value, const AttentionMask& mask,
                         const AttentionOptions& options, AttentionTrace& trace,
                         std::span<const StageReplacement> replacements) const;

private:
    /// Checks inputs, mask, heads and positions against the module; returns the mask in force.
    AttentionMask checkInputs(const Tensor& query, const Tensor& key, const Tensor& value,
                              const AttentionMask& mask, const AttentionOptions& options) const;
    /// Sets the trace's sizes and description for a pass over these inputs.
    void startTrace(const Tensor& query, const Tensor& key, const AttentionOptions& options,
                    AttentionTrace& trace) const;

    AttentionWeights m_weights;
    AttentionDescription m_description;
};

} // namespace attnviz::engine
