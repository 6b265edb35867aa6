#pragma once

#include "engine/attention_description.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/resolved_mask.h"
#include "engine/tensor.h"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace attnviz::engine {

/// Where each token sits, for what depends on position (rotary positions, a score bias):
/// `query` is [B·Nq] and `key` [B·Nk], row-major; an empty one means 0, 1, …, N − 1 in every
/// batch item. A decoding step with a KV cache has queries that start further on than their
/// keys.
struct TokenPositions {
    std::vector<std::int64_t> query;
    std::vector<std::int64_t> key;
};

/// The largest position a token may have: far beyond any context window, small enough that
/// angles and distances stay exact in double.
inline constexpr std::int64_t kMaxPosition = (std::int64_t{1} << 31) - 1;

/// What every stage of one forward pass reads besides the trace: the module, its inputs, the
/// mask in force and the positions. The trace holds what earlier stages made.
struct StageInputs {
    const AttentionDescription& description;
    const AttentionWeights& weights;
    const Tensor& query;
    const Tensor& key;
    const Tensor& value;
    const ResolvedMask& mask;
    const TokenPositions& positions;
    const std::vector<int>& ablatedHeads;

    std::int64_t queryPosition(std::int64_t b, std::int64_t i) const;
    std::int64_t keyPosition(std::int64_t b, std::int64_t j) const;
};

/// The angles of rotary positions, one row a (batch item, token): cos and sin of
/// position · frequency for the r/2 pairs, in double. Every head shares them.
struct RotaryTable {
    std::vector<double> cos, sin;
    std::int64_t half = 0; ///< r/2: feature i turns with feature i + half
};
RotaryTable rotaryTable(const AttentionDescription& d, std::int64_t batch, std::int64_t tokens,
                        const std::vector<std::int64_t>& positions);

/// One stage: reads the steps before it from the trace and writes its own steps there.
using StageFunction = void (*)(const StageInputs& in, AttentionTrace& trace);

/// The stages of the formula, one function each, in order. The fast path
/// (MultiHeadAttention::forward) fuses Scores … Context into one pass over blocks of query
/// rows; the stage-by-stage path runs these functions one after the other, and a common
/// mistake is this path with a stage replaced (engine/attention_mistakes.h).
struct AttentionStageInfo {
    AttentionStage stage;
    std::string_view name;
    StageFunction run;
};

namespace stages {
void project(const StageInputs& in, AttentionTrace& t); ///< q/k/v_proj = X Wᵀ + b
void split(const StageInputs& in, AttentionTrace& t); ///< q/k/v_heads: feature slices per head
void rotate(const StageInputs& in, AttentionTrace& t); ///< q/k_rotated by position
void scores(const StageInputs& in, AttentionTrace& t); ///< Q_h K_{kv(h)}ᵀ
void scale(const StageInputs& in, AttentionTrace& t); ///< scores / divisor
void bias(const StageInputs& in, AttentionTrace& t); ///< scaled − slope_h · (i − j)
void mask(const StageInputs& in, AttentionTrace& t); ///< −∞ where blocked
void onlineSoftmax(const StageInputs& in, AttentionTrace& t); ///< m, ℓ after each key tile
void softmax(const StageInputs& in, AttentionTrace& t); ///< over the keys of each row
void context(const StageInputs& in, AttentionTrace& t); ///< weights · V_{kv(h)}
void concat(const StageInputs& in, AttentionTrace& t); ///< heads side by side, ablated ones 0
void output(const StageInputs& in, AttentionTrace& t); ///< concat W_oᵀ + b_o

/// What the mask stage builds on: the biased scores when the module has a bias, else scaled.
const Tensor& maskInput(const AttentionTrace& t);
/// Copies the mask stage's input into `masked` with the cells `mask` blocks set to `fill`
/// (the correct stage uses −∞; mistakes use other masks and fills).
void fillBlocked(const AttentionTrace& t, const ResolvedMask& mask, float fill, Tensor& masked);
/// Softmax of each row (or, for a mistake, each column) with its maximum subtracted and the sum
/// taken in double; a row of −∞ gives zeros, or NaN (0/0) when `guarded` is false.
void softmaxOf(const Tensor& masked, bool overQueries, bool guarded, Tensor& weights);
/// The query rows whose masked scores are all −∞, from the masked step.
void findFullyMaskedRows(AttentionTrace& t);
} // namespace stages

inline constexpr std::array kAttentionStageTable = {
    AttentionStageInfo{AttentionStage::Project, "project", stages::project},
    AttentionStageInfo{AttentionStage::Split, "split", stages::split},
    AttentionStageInfo{AttentionStage::Rotate, "rotate", stages::rotate},
    AttentionStageInfo{AttentionStage::Scores, "scores", stages::scores},
    AttentionStageInfo{AttentionStage::Scale, "scale", stages::scale},
    AttentionStageInfo{AttentionStage::Bias, "bias", stages::bias},
    AttentionStageInfo{AttentionStage::Mask, "mask", stages::mask},
    AttentionStageInfo{AttentionStage::OnlineSoftmax, "online_softmax", stages::onlineSoftmax},
    AttentionStageInfo{AttentionStage::Softmax, "softmax", stages::softmax},
    AttentionStageInfo{AttentionStage::Context, "context", stages::context},
    AttentionStageInfo{AttentionStage::Concat, "concat", stages::concat},
    AttentionStageInfo{AttentionStage::Output, "output", stages::output},
};

/// A stage computed another way (a common mistake).
struct StageReplacement {
    AttentionStage stage;
    StageFunction run;
};

/// Runs the stages from `from` to the end over a trace whose earlier steps are filled, each
/// stage the description has by its function in the table unless `replacements` names another.
void runStagesFrom(AttentionStage from, const StageInputs& in, AttentionTrace& trace,
                   std::span<const StageReplacement> replacements = {});

} // namespace attnviz::engine
