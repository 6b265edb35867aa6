#pragma once

#include "engine/attention_description.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/resolved_mask.h"
#include "engine/tensor.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
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

/// The first step a block's values stopped being finite at, and the first such value ("+Inf",
/// "-Inf", "NaN"): the pass is refused there (engine/non_finite.h).
struct NonFiniteStep {
    AttentionStep step;
    std::string value;
};

/// One block of query rows of one head, as the stages Scores … Context see it: rows
/// [r0, r0 + rows) of query head h (K/V head g) in batch item b, and where the block's
/// score-shaped steps are held — rows of the trace's whole tensors (the exact and the
/// stage-by-stage pass, one block a head), or a fused pass's scratch rows (64 rows a block),
/// which are copied into the trace when it keeps them.
template <typename Scalar> struct RowBlock {
    using Rows = Eigen::Map<RowMatrixOf<Scalar>, 0, Eigen::OuterStride<>>;

    std::int64_t b = 0;
    int h = 0;
    int g = 0;
    Eigen::Index r0 = 0, rows = 0, keys = 0;
    /// The keys some row of the block may see, [first, last): the weights and the context need
    /// no other column, and the scores before the mask compute only these unless kept.
    Eigen::Index first = 0, last = 0;
    /// The keys the steps before the mask compute: [first, last), or every key when the pass
    /// keeps one of those steps.
    Eigen::Index front = 0, back = 0;
    /// The masked step holds −∞ outside [first, last) too (it is kept, or the online softmax
    /// reads whole rows); otherwise those cells are never read.
    bool wholeMasked = false;
    /// Row 0 of each score-shaped step of the block (null for the others); row r starts `stride`
    /// values further on.
    std::array<Scalar*, kAttentionStepTable.size()> at{};
    Eigen::Index stride = 0;
    /// Per thread, reused from block to block by the stages that need room of their own.
    struct Scratch {
        RowMatrixOf<Scalar> valuesByFeature; ///< a K/V head's values transposed (the context)
        std::int64_t valuesOf = -1; ///< which one: b · H_kv + g
        Eigen::Array<double, 1, Eigen::Dynamic> differences; ///< a row's x − max, in double
        Eigen::Array<float, 1, Eigen::Dynamic> lowParts; ///< what x − max loses in float
        Eigen::Array<float, 1, Eigen::Dynamic> exps; ///< a row's exp(x − max), aligned
    };
    Scratch* scratch = nullptr;

    Rows rowsOf(AttentionStep s) const
    {
        return Rows(at[static_cast<std::size_t>(s)], rows, keys, Eigen::OuterStride<>(stride));
    }
    /// Which keys row r (of the block) may see.
    ResolvedMask::Row mask(const StageInputs& in, Eigen::Index r) const
    {
        return in.mask.row(b, r0 + r);
    }
};

/// The first value of the block's rows of `stage`'s steps that is not finite as a float (a
/// double beyond the float range counts), in step order: score-shaped steps at the cells the
/// mask leaves open, the context everywhere. Nothing for a stage that cannot overflow.
template <typename S>
std::optional<NonFiniteStep> firstNonFiniteOf(const StageInputs& in,
                                              const BasicAttentionTrace<S>& t,
                                              const RowBlock<S>& block, AttentionStage stage);

/// A stage over whole tensors: reads the steps before it from the trace and writes its own.
template <typename Scalar>
using WholeStage = void (*)(const StageInputs& in, BasicAttentionTrace<Scalar>& t);
/// A stage over one block of query rows of one head (the stages Scores … Context).
template <typename Scalar>
using BlockStage = void (*)(const StageInputs& in, BasicAttentionTrace<Scalar>& t,
                            const RowBlock<Scalar>& block);

/// How one stage is computed in one precision: over whole tensors, or block by block.
template <typename Scalar> struct StageFunction {
    WholeStage<Scalar> whole = nullptr;
    BlockStage<Scalar> block = nullptr;
    constexpr StageFunction(WholeStage<Scalar> f)
        : whole(f)
    {
    }
    constexpr StageFunction(BlockStage<Scalar> f)
        : block(f)
    {
    }
};

/// One stage of the formula: its function, written once as a template and taken in float (the
/// fused and the stage-by-stage pass) and in double (the exact pass), and the modules that have
/// it. Every pass runs the table in order (MultiHeadAttention::forward), so a new stage is one
/// function and one row.
struct AttentionStageInfo {
    AttentionStage stage;
    std::string_view name;
    bool (*present)(const AttentionDescription&);
    StageFunction<float> inFloat;
    StageFunction<double> inDouble;
    /// Its arithmetic can take finite numbers past the float range (a product, a sum, a scale):
    /// a pass checks its steps and is refused where they stop being finite (non_finite.h).
    bool mayOverflow = false;
    /// Its steps are for the trace only and no later stage reads them: a fused pass that does
    /// not keep them skips the stage.
    bool onlyForTheTrace = false;
    bool byBlocks() const { return inFloat.block != nullptr; }
};

namespace stages {
template <typename S> void project(const StageInputs& in, BasicAttentionTrace<S>& t); ///< X Wᵀ + b
template <typename S> void split(const StageInputs& in, BasicAttentionTrace<S>& t); ///< heads
template <typename S> void normQueryKey(const StageInputs& in, BasicAttentionTrace<S>& t); ///< RMS
template <typename S> void rotate(const StageInputs& in, BasicAttentionTrace<S>& t); ///< RoPE
template <typename S>
void scores(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block); ///< QKᵀ
template <typename S>
void scale(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block); ///< × s
template <typename S>
void cap(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block); ///< c·tanh
template <typename S>
void bias(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block); ///< ALiBi
template <typename S>
void mask(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block); ///< −∞
template <typename S>
void onlineSoftmax(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block);
template <typename S>
void softmax(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block);
template <typename S>
void context(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block);
template <typename S> void concat(const StageInputs& in, BasicAttentionTrace<S>& t);
template <typename S> void output(const StageInputs& in, BasicAttentionTrace<S>& t);

/// Softmax of one row of masked scores (−∞ where blocked) over keys [from, to), read from `in`
/// and written to `out` (the same row, or another), with a sink logit joining the row when
/// given; returns the sink's weight (0 without one). A row
/// with nothing to attend to gives zeros, or NaN (0/0) when `guarded` is false (a mistake). The
/// one softmax of the engine: the softmax stage, and a common mistake's columns.
template <typename S>
S softmaxRow(const S* in, S* out, Eigen::Index from, Eigen::Index to, std::optional<double> sink,
             bool guarded, typename RowBlock<S>::Scratch& scratch);
} // namespace stages

namespace detail {
constexpr bool always(const AttentionDescription&)
{
    return true;
}
} // namespace detail

inline constexpr std::array kAttentionStageTable = {
    AttentionStageInfo{AttentionStage::Project, "project", detail::always, stages::project<float>,
                       stages::project<double>, true},
    AttentionStageInfo{AttentionStage::Split, "split", detail::always, stages::split<float>,
                       stages::split<double>},
    AttentionStageInfo{AttentionStage::NormQueryKey, "norm_query_key",
                       [](const AttentionDescription& d) { return d.queryKeyNorm.has_value(); },
                       stages::normQueryKey<float>, stages::normQueryKey<double>, true},
    AttentionStageInfo{AttentionStage::Rotate, "rotate",
                       [](const AttentionDescription& d) { return d.rotary.has_value(); },
                       stages::rotate<float>, stages::rotate<double>, true},
    AttentionStageInfo{AttentionStage::Scores, "scores", detail::always, stages::scores<float>,
                       stages::scores<double>, true},
    AttentionStageInfo{AttentionStage::Scale, "scale", detail::always, stages::scale<float>,
                       stages::scale<double>, true},
    AttentionStageInfo{AttentionStage::Cap, "cap",
                       [](const AttentionDescription& d) { return d.logitSoftCap.has_value(); },
                       stages::cap<float>, stages::cap<double>},
    AttentionStageInfo{AttentionStage::Bias, "bias",
                       [](const AttentionDescription& d) { return d.scoreBias.has_value(); },
                       stages::bias<float>, stages::bias<double>, true},
    AttentionStageInfo{AttentionStage::Mask, "mask", detail::always, stages::mask<float>,
                       stages::mask<double>},
    AttentionStageInfo{
        AttentionStage::OnlineSoftmax, "online_softmax",
        [](const AttentionDescription& d) { return d.onlineSoftmaxTile.has_value(); },
        stages::onlineSoftmax<float>, stages::onlineSoftmax<double>, false, true},
    AttentionStageInfo{AttentionStage::Softmax, "softmax", detail::always, stages::softmax<float>,
                       stages::softmax<double>},
    AttentionStageInfo{AttentionStage::Context, "context", detail::always, stages::context<float>,
                       stages::context<double>, true},
    AttentionStageInfo{AttentionStage::Concat, "concat", detail::always, stages::concat<float>,
                       stages::concat<double>},
    AttentionStageInfo{AttentionStage::Output, "output", detail::always, stages::output<float>,
                       stages::output<double>, true},
};

/// The table's row for a stage.
const AttentionStageInfo& stageInfo(AttentionStage stage);

/// The axes of a step in a pass of these sizes (from the step table's axes and the head
/// columns): what every stage allocates its steps with. `outputWidth` is Po.
std::vector<Axis> stepAxes(AttentionStep step, const AttentionSizes& sizes,
                           std::int64_t outputWidth);

/// How a pass treats values that stop being finite: refused where they first appear, or let
/// through (a common mistake's NaN rows are its lesson).
enum class NonFinite { Refused, Kept };

/// A stage computed another way (a common mistake), over whole tensors, in both precisions: a
/// mistake is made on the pass that made the correct trace, so that every value it does not
/// change keeps its bits.
struct StageReplacement {
    AttentionStage stage;
    WholeStage<float> inFloat = nullptr;
    WholeStage<double> inDouble = nullptr;
};

/// Runs the stages from `from` to the end (or up to `before`) over whole tensors (the
/// stage-by-stage pass, and the exact pass in double) on a trace whose earlier steps are filled and
/// whose sizes are set, each stage the description has by its function in the table unless
/// `replacements` names another. Throws NonFiniteError at the first step whose values stop being
/// finite, unless `nonFinite` keeps them.
template <typename S>
void runStagesFrom(AttentionStage from, const StageInputs& in, BasicAttentionTrace<S>& trace,
                   std::span<const StageReplacement> replacements = {},
                   std::optional<AttentionStage> before = std::nullopt,
                   NonFinite nonFinite = NonFinite::Refused);

/// Rows [r0, r0 + rows) of head h in batch item b and the keys they may see ([first, last);
/// front and back the same), with no storage yet.
template <typename S>
RowBlock<S> rowBlock(const StageInputs& in, std::int64_t b, int h, Eigen::Index r0,
                     Eigen::Index rows, Eigen::Index keys);

/// The block of rows [r0, r0 + rows) of head h in batch item b as a whole-tensor pass holds it
/// for stage `upTo`: its score-shaped steps up to that stage's are rows of the trace's tensors.
template <typename S>
RowBlock<S> wholeTensorBlock(const StageInputs& in, BasicAttentionTrace<S>& t, std::int64_t b,
                             int h, Eigen::Index r0, Eigen::Index rows, AttentionStage upTo);

} // namespace attnviz::engine
