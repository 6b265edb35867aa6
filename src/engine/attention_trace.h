#pragma once

#include "engine/attention_description.h"
#include "engine/tensor.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attnviz::engine {

/// The stages of a forward pass, in order: one function each (engine/attention_stages.h). The
/// optional ones run only when the module's description has them: NormQueryKey with QK-norm,
/// Rotate with rotary positions, Cap with soft-capping, Bias with a score bias, OnlineSoftmax
/// with a key tile.
enum class AttentionStage {
    Project,
    Split,
    NormQueryKey,
    Rotate,
    Scores,
    Scale,
    Cap,
    Bias,
    Mask,
    OnlineSoftmax,
    Softmax,
    Context,
    Concat,
    Output,
};

/// Whether a module with this description runs the stage.
bool stagePresent(AttentionStage stage, const AttentionDescription& description);

/// The intermediates of one multi-head attention forward pass, in the order they are computed.
/// What each one is (name, shape, which stage makes it, what it is a version of) is written down
/// once, in kAttentionStepTable below; views, dumps, exports, the CLI and the tests derive from
/// it.
enum class AttentionStep {
    QProj,
    KProj,
    VProj,
    QHeads,
    KHeads,
    VHeads,
    QNormed,
    KNormed,
    QRotated,
    KRotated,
    Scores,
    Scaled,
    Capped,
    Biased,
    Masked,
    OnlineMax,
    OnlineSum,
    Weights,
    SinkWeights,
    Context,
    Concat,
    Output,
};

/// How a forward pass was computed (AttentionOptions::path chooses, the trace records it). The
/// three run the same stage functions (engine/attention_stages.h) in the same order and agree
/// to float rounding; they differ in precision and in the order of the loops.
enum class AttentionPath {
    /// The one the pass's size calls for: Exact up to kExactPassLimit multiply-adds, else Fused.
    Automatic,
    /// Every stage over whole tensors in double, each step from the unrounded steps before it,
    /// rounded to float once: every value the float nearest its exact value.
    Exact,
    /// Float; the stages Scores … Context run one block of query rows after the other, so that
    /// a block's score-shaped steps stay in the cache and those not kept never exist whole.
    Fused,
    /// Float; every stage over whole tensors, one after the other: the plain reading of the
    /// formula, and the pass a common mistake replaces stages of.
    ByStages,
};

/// "exact", "fused", "by_stages" (and "automatic"): the manifest's and the tests' spelling.
const char* attentionPathName(AttentionPath path);

/// A query row whose keys are all blocked; its weights and context are zero (never NaN).
struct MaskedRow {
    std::int64_t batch = 0;
    std::int64_t query = 0;
    bool operator==(const MaskedRow&) const = default;
};

/// The sizes of one forward pass.
struct AttentionSizes {
    std::int64_t batch = 0, heads = 0, queries = 0, keys = 0;
    std::int64_t keyValueHeads = 0; ///< H_kv
    std::int64_t queryKey = 0; ///< d_k
    std::int64_t value = 0; ///< d_v
    std::int64_t tiles = 0; ///< key tiles of the online softmax, ⌈keys / tile⌉ (0 without)
    bool operator==(const AttentionSizes&) const = default;
};

/// Every intermediate of one multi-head attention forward pass, one named tensor a step (the
/// llm.c habit: the activations are a plain struct). A trace is immutable once computed; the
/// engine may refill an old one to reuse its memory. Per-head matrices are views into the step's
/// tensor: `trace.weights.matrix({batch, head})` copies nothing. A step the caller chose not to
/// keep (AttentionKeep) is an empty tensor of rank 0. Traces are float; the exact pass computes
/// a trace of doubles first (BasicAttentionTrace<double>) and rounds it into a float one.
template <typename Scalar> struct BasicAttentionTrace {
    using Steps = BasicTensor<Scalar>;
    Steps qProj; ///< [batch, query, feature]  X_q W_qᵀ + b_q
    Steps kProj; ///< [batch, key, feature]    X_k W_kᵀ + b_k
    Steps vProj; ///< [batch, key, feature]    X_v W_vᵀ + b_v
    Steps qHeads; ///< [batch, head, query, d_k]
    Steps kHeads; ///< [batch, kv head, key, d_k]  (H_kv heads; H_kv = H without grouping)
    Steps vHeads; ///< [batch, kv head, key, d_v]
    Steps qNormed; ///< [batch, head, query, d_k]  q heads after QK-norm
    Steps kNormed; ///< [batch, kv head, key, d_k]  k heads after QK-norm
    Steps qRotated; ///< [batch, head, query, d_k]  q heads turned by position (rotary only)
    Steps kRotated; ///< [batch, kv head, key, d_k]  k heads turned by position (rotary only)
    Steps scores; ///< [batch, head, query, key]  Q_h K_gᵀ of the queries and keys as they arrive
    Steps scaled; ///< [batch, head, query, key]  scores × scale (1/√d_k unless stated)
    Steps capped; ///< [batch, head, query, key]  c · tanh(scaled / c) (soft-capping only)
    Steps biased; ///< [batch, head, query, key]  + the score bias (ALiBi only)
    Steps masked; ///< [batch, head, query, key]  −∞ where blocked
    Steps onlineMax; ///< [batch, head, query, tile]  running maximum m after each key tile
    Steps onlineSum; ///< [batch, head, query, tile]  running sum ℓ of exp(masked − m) after it
    Steps weights; ///< [batch, head, query, key]  softmax over keys (and the sink)
    Steps sinkWeights; ///< [batch, head, query]  the weight each row gives its head's sink
    Steps context; ///< [batch, head, query, d_v]  weights · V_g
    Steps concat; ///< [batch, query, feature]    heads side by side
    Steps output; ///< [batch, query, feature]    concat W_oᵀ + b_o
    /// Query rows with every key blocked, in (batch, query) order.
    std::vector<MaskedRow> fullyMaskedRows;
    /// Heads switched off: their context is computed, but concat holds zeros in their columns.
    std::vector<int> ablatedHeads;
    /// The module's description: which optional steps it has, which K/V head a query head read.
    AttentionDescription description;
    /// How the pass was computed: Exact, Fused or ByStages.
    AttentionPath path = AttentionPath::Automatic;

    /// The members in AttentionStep order: the one place that ties a step to its tensor.
    static constexpr std::array kSteps = {
        &BasicAttentionTrace::qProj,       &BasicAttentionTrace::kProj,
        &BasicAttentionTrace::vProj,       &BasicAttentionTrace::qHeads,
        &BasicAttentionTrace::kHeads,      &BasicAttentionTrace::vHeads,
        &BasicAttentionTrace::qNormed,     &BasicAttentionTrace::kNormed,
        &BasicAttentionTrace::qRotated,    &BasicAttentionTrace::kRotated,
        &BasicAttentionTrace::scores,      &BasicAttentionTrace::scaled,
        &BasicAttentionTrace::capped,      &BasicAttentionTrace::biased,
        &BasicAttentionTrace::masked,      &BasicAttentionTrace::onlineMax,
        &BasicAttentionTrace::onlineSum,   &BasicAttentionTrace::weights,
        &BasicAttentionTrace::sinkWeights, &BasicAttentionTrace::context,
        &BasicAttentionTrace::concat,      &BasicAttentionTrace::output,
    };
    Steps& step(AttentionStep s) { return this->*kSteps[static_cast<std::size_t>(s)]; }
    const Steps& step(AttentionStep s) const { return this->*kSteps[static_cast<std::size_t>(s)]; }

    /// The sizes of the pass; they hold even for steps that were not kept.
    using Sizes = AttentionSizes;
    Sizes sizes;

    std::int64_t batchSize() const { return sizes.batch; }
    std::int64_t numHeads() const { return sizes.heads; }
    std::int64_t numKeyValueHeads() const { return sizes.keyValueHeads; }
    std::int64_t queryLength() const { return sizes.queries; }
    std::int64_t keyLength() const { return sizes.keys; }
    std::int64_t queryKeySize() const { return sizes.queryKey; } ///< d_k
    std::int64_t valueSize() const { return sizes.value; } ///< d_v
    std::int64_t tileCount() const { return sizes.tiles; }
    /// Whether a step was kept by the pass that filled this trace.
    bool has(AttentionStep s) const { return step(s).rank() != 0; }
    /// Whether the module that made this trace computes the step at all (q_rotated only with
    /// rotary positions, ...): what views, dumps and the step bar offer.
    bool computes(AttentionStep s) const;
    /// Every step the module computes, in order.
    std::vector<AttentionStep> computedSteps() const;
};

using AttentionTrace = BasicAttentionTrace<float>;
extern template struct BasicAttentionTrace<float>;
extern template struct BasicAttentionTrace<double>;

/// Which feature columns of a step belong to which head: none, d_k-wide slices (q_proj, k_proj)
/// or d_v-wide slices (v_proj, concat). Views draw those slices as head bands.
enum class HeadColumns { None, QueryKey, Value };

/// What a step is a version of, for the stages that read "the keys as they are by now": the
/// latest step of a stream the description has, made by a stage before the reader
/// (latestStep). Scores read the queries and keys after QK-norm and rotary positions when the
/// module has them; the mask reads the scores after the scale, the cap and the bias.
enum class StepStream { None, Query, Key, Value, Score };

/// What an attention step is. One row per step, in computation order.
struct AttentionStepInfo {
    AttentionStep step;
    std::string_view name; ///< stable: file names, dump names, CLI arguments
    std::string_view axes; ///< "batch,head,query,key": the tensor's axes, for help and manifests
    bool perHead; ///< the tensor is [batch, head, row, column]
    bool scoreShaped; ///< [batch, head, query, key]: one value per query-key pair
    HeadColumns headColumns;
    AttentionStage stage; ///< the stage that computes it
    StepStream stream = StepStream::None;
    /// Its heads (the head axis, or the head slices of its features) are the K/V heads (H_kv),
    /// not the query heads.
    bool keyValueHeads = false;
    /// A step its stage makes only in some modules (the sink's weights); null: whenever the
    /// stage runs.
    bool (*onlyWhen)(const AttentionDescription&) = nullptr;
};

namespace detail {
inline bool hasSinks(const AttentionDescription& d)
{
    return d.learnedSinks;
}
} // namespace detail

inline constexpr std::array kAttentionStepTable = {
    AttentionStepInfo{AttentionStep::QProj, "q_proj", "batch,query,feature", false, false,
                      HeadColumns::QueryKey, AttentionStage::Project},
    AttentionStepInfo{AttentionStep::KProj, "k_proj", "batch,key,feature", false, false,
                      HeadColumns::QueryKey, AttentionStage::Project, StepStream::None, true},
    AttentionStepInfo{AttentionStep::VProj, "v_proj", "batch,key,feature", false, false,
                      HeadColumns::Value, AttentionStage::Project, StepStream::None, true},
    AttentionStepInfo{AttentionStep::QHeads, "q_heads", "batch,head,query,d_k", true, false,
                      HeadColumns::None, AttentionStage::Split, StepStream::Query},
    AttentionStepInfo{AttentionStep::KHeads, "k_heads", "batch,head,key,d_k", true, false,
                      HeadColumns::None, AttentionStage::Split, StepStream::Key, true},
    AttentionStepInfo{AttentionStep::VHeads, "v_heads", "batch,head,key,d_v", true, false,
                      HeadColumns::None, AttentionStage::Split, StepStream::Value, true},
    AttentionStepInfo{AttentionStep::QNormed, "q_normed", "batch,head,query,d_k", true, false,
                      HeadColumns::None, AttentionStage::NormQueryKey, StepStream::Query},
    AttentionStepInfo{AttentionStep::KNormed, "k_normed", "batch,head,key,d_k", true, false,
                      HeadColumns::None, AttentionStage::NormQueryKey, StepStream::Key, true},
    AttentionStepInfo{AttentionStep::QRotated, "q_rotated", "batch,head,query,d_k", true, false,
                      HeadColumns::None, AttentionStage::Rotate, StepStream::Query},
    AttentionStepInfo{AttentionStep::KRotated, "k_rotated", "batch,head,key,d_k", true, false,
                      HeadColumns::None, AttentionStage::Rotate, StepStream::Key, true},
    AttentionStepInfo{AttentionStep::Scores, "scores", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Scores, StepStream::Score},
    AttentionStepInfo{AttentionStep::Scaled, "scaled", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Scale, StepStream::Score},
    AttentionStepInfo{AttentionStep::Capped, "capped", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Cap, StepStream::Score},
    AttentionStepInfo{AttentionStep::Biased, "biased", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Bias, StepStream::Score},
    AttentionStepInfo{AttentionStep::Masked, "masked", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Mask, StepStream::Score},
    AttentionStepInfo{AttentionStep::OnlineMax, "online_max", "batch,head,query,tile", true, false,
                      HeadColumns::None, AttentionStage::OnlineSoftmax},
    AttentionStepInfo{AttentionStep::OnlineSum, "online_sum", "batch,head,query,tile", true, false,
                      HeadColumns::None, AttentionStage::OnlineSoftmax},
    AttentionStepInfo{AttentionStep::Weights, "weights", "batch,head,query,key", true, true,
                      HeadColumns::None, AttentionStage::Softmax},
    AttentionStepInfo{AttentionStep::SinkWeights, "sink_weights", "batch,head,query", false, false,
                      HeadColumns::None, AttentionStage::Softmax, StepStream::None, false,
                      detail::hasSinks},
    AttentionStepInfo{AttentionStep::Context, "context", "batch,head,query,d_v", true, false,
                      HeadColumns::None, AttentionStage::Context},
    AttentionStepInfo{AttentionStep::Concat, "concat", "batch,query,feature", false, false,
                      HeadColumns::Value, AttentionStage::Concat},
    AttentionStepInfo{AttentionStep::Output, "output", "batch,query,feature", false, false,
                      HeadColumns::None, AttentionStage::Output},
};

/// Every step in computation order (derived from the table).
inline constexpr auto kAttentionSteps = [] {
    std::array<AttentionStep, kAttentionStepTable.size()> steps{};
    for (std::size_t i = 0; i < steps.size(); ++i)
        steps[i] = kAttentionStepTable[i].step;
    return steps;
}();

/// The table's row for a step.
const AttentionStepInfo& stepInfo(AttentionStep step);
/// Whether a module with this description computes the step.
bool stepPresent(AttentionStep step, const AttentionDescription& description);
/// The step of `stream` a stage sees: the latest one the description has that a stage before
/// `reader` makes (the scores see q_rotated with rotary positions, else q_normed with QK-norm,
/// else q_heads). Every stage reads its input through this, and so do the views and the cell
/// arithmetic that explain it.
AttentionStep latestStep(StepStream stream, AttentionStage reader,
                         const AttentionDescription& description);
/// "q_proj", "weights", ...
std::string_view stepName(AttentionStep step);
/// The step with this name, if any.
std::optional<AttentionStep> stepFromName(std::string_view name);

/// Which steps a forward pass keeps in its trace; the others are computed in small scratch
/// buffers and dropped, so a long input need not hold four score-sized tensors per block.
class AttentionKeep {
public:
    static AttentionKeep all();
    static AttentionKeep only(std::initializer_list<AttentionStep> steps);
    bool has(AttentionStep step) const { return (m_bits >> static_cast<unsigned>(step)) & 1u; }
    bool keepsAll() const;
    AttentionKeep& add(AttentionStep step);

private:
    unsigned m_bits = 0;
};

} // namespace attnviz::engine
