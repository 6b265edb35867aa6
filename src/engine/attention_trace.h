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
/// optional ones run only when the module's description has them: Rotate with rotary
/// positions, Bias with a score bias, OnlineSoftmax with a key tile.
enum class AttentionStage {
    Project,
    Split,
    Rotate,
    Scores,
    Scale,
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
/// What each one is (name, shape, which field holds it, which stage makes it) is written down
/// once, in kAttentionStepTable below; views, dumps, exports, the CLI and the tests derive from
/// it.
enum class AttentionStep {
    QProj,
    KProj,
    VProj,
    QHeads,
    KHeads,
    VHeads,
    QRotated,
    KRotated,
    Scores,
    Scaled,
    Biased,
    Masked,
    OnlineMax,
    OnlineSum,
    Weights,
    Context,
    Concat,
    Output,
};

/// A query row whose keys are all blocked; its weights and context are zero (never NaN).
struct MaskedRow {
    std::int64_t batch = 0;
    std::int64_t query = 0;
    bool operator==(const MaskedRow&) const = default;
};

/// Every intermediate of one multi-head attention forward pass, one named tensor a step (the
/// llm.c habit: the activations are a plain struct). A trace is immutable once computed; the
/// engine may refill an old one to reuse its memory. Per-head matrices are views into the step's
/// tensor: `trace.weights.matrix({batch, head})` copies nothing. A step the caller chose not to
/// keep (AttentionKeep) is an empty tensor of rank 0.
struct AttentionTrace {
    Tensor qProj; ///< [batch, query, feature]  X_q W_qᵀ + b_q
    Tensor kProj; ///< [batch, key, feature]    X_k W_kᵀ + b_k
    Tensor vProj; ///< [batch, key, feature]    X_v W_vᵀ + b_v
    Tensor qHeads; ///< [batch, head, query, d_k]
    Tensor kHeads; ///< [batch, kv head, key, d_k]  (H_kv heads; H_kv = H without grouping)
    Tensor vHeads; ///< [batch, kv head, key, d_v]
    Tensor qRotated; ///< [batch, head, query, d_k]  q heads turned by position (rotary only)
    Tensor kRotated; ///< [batch, kv head, key, d_k]  k heads turned by position (rotary only)
    Tensor scores; ///< [batch, head, query, key]  Q_h K_hᵀ (rotated, with rotary positions)
    Tensor scaled; ///< [batch, head, query, key]  scores / √d_k
    Tensor biased; ///< [batch, head, query, key]  scaled + the score bias (ALiBi only)
    Tensor masked; ///< [batch, head, query, key]  scaled (or biased), −∞ where blocked
    Tensor onlineMax; ///< [batch, head, query, tile]  running maximum m after each key tile
    Tensor onlineSum; ///< [batch, head, query, tile]  running sum ℓ of exp(masked − m) after it
    Tensor weights; ///< [batch, head, query, key]  softmax over keys
    Tensor context; ///< [batch, head, query, d_v]  weights · V_h
    Tensor concat; ///< [batch, query, feature]    heads side by side
    Tensor output; ///< [batch, query, feature]    concat W_oᵀ + b_o
    /// Query rows with every key blocked, in (batch, query) order.
    std::vector<MaskedRow> fullyMaskedRows;
    /// Heads switched off: their context is computed, but concat holds zeros in their columns.
    std::vector<int> ablatedHeads;
    /// The module's description: which optional steps it has, which K/V head a query head read.
    AttentionDescription description;

    Tensor& step(AttentionStep step);
    const Tensor& step(AttentionStep step) const;

    /// The sizes of the pass; they hold even for steps that were not kept.
    struct Sizes {
        std::int64_t batch = 0, heads = 0, queries = 0, keys = 0;
        std::int64_t keyValueHeads = 0; ///< H_kv
        std::int64_t queryKey = 0; ///< d_k
        std::int64_t value = 0; ///< d_v
        std::int64_t tiles = 0; ///< key tiles of the online softmax, ⌈keys / tile⌉ (0 without)
        bool operator==(const Sizes&) const = default;
    };
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

/// Which feature columns of a step belong to which head: none, d_k-wide slices (q_proj, k_proj)
/// or d_v-wide slices (v_proj, concat). Views draw those slices as head bands.
enum class HeadColumns { None, QueryKey, Value };

/// What an attention step is. One row per step, in computation order.
struct AttentionStepInfo {
    AttentionStep step;
    std::string_view name; ///< stable: file names, dump names, CLI arguments
    std::string_view axes; ///< "batch,head,query,key": the tensor's axes, for help and manifests
    bool perHead; ///< the tensor is [batch, head, row, column]
    bool scoreShaped; ///< [batch, head, query, key]: one value per query-key pair
    HeadColumns headColumns;
    Tensor AttentionTrace::*field;
    AttentionStage stage; ///< the stage that computes it
    /// Its heads (the head axis, or the head slices of its features) are the K/V heads (H_kv),
    /// not the query heads.
    bool keyValueHeads = false;
};

inline constexpr std::array kAttentionStepTable = {
    AttentionStepInfo{AttentionStep::QProj, "q_proj", "batch,query,feature", false, false,
                      HeadColumns::QueryKey, &AttentionTrace::qProj, AttentionStage::Project},
    AttentionStepInfo{AttentionStep::KProj, "k_proj", "batch,key,feature", false, false,
                      HeadColumns::QueryKey, &AttentionTrace::kProj, AttentionStage::Project, true},
    AttentionStepInfo{AttentionStep::VProj, "v_proj", "batch,key,feature", false, false,
                      HeadColumns::Value, &AttentionTrace::vProj, AttentionStage::Project, true},
    AttentionStepInfo{AttentionStep::QHeads, "q_heads", "batch,head,query,d_k", true, false,
                      HeadColumns::None, &AttentionTrace::qHeads, AttentionStage::Split},
    AttentionStepInfo{AttentionStep::KHeads, "k_heads", "batch,head,key,d_k", true, false,
                      HeadColumns::None, &AttentionTrace::kHeads, AttentionStage::Split, true},
    AttentionStepInfo{AttentionStep::VHeads, "v_heads", "batch,head,key,d_v", true, false,
                      HeadColumns::None, &AttentionTrace::vHeads, AttentionStage::Split, true},
    AttentionStepInfo{AttentionStep::QRotated, "q_rotated", "batch,head,query,d_k", true, false,
                      HeadColumns::None, &AttentionTrace::qRotated, AttentionStage::Rotate},
    AttentionStepInfo{AttentionStep::KRotated, "k_rotated", "batch,head,key,d_k", true, false,
                      HeadColumns::None, &AttentionTrace::kRotated, AttentionStage::Rotate, true},
    AttentionStepInfo{AttentionStep::Scores, "scores", "batch,head,query,key", true, true,
                      HeadColumns::None, &AttentionTrace::scores, AttentionStage::Scores},
    AttentionStepInfo{AttentionStep::Scaled, "scaled", "batch,head,query,key", true, true,
                      HeadColumns::None, &AttentionTrace::scaled, AttentionStage::Scale},
    AttentionStepInfo{AttentionStep::Biased, "biased", "batch,head,query,key", true, true,
                      HeadColumns::None, &AttentionTrace::biased, AttentionStage::Bias},
    AttentionStepInfo{AttentionStep::Masked, "masked", "batch,head,query,key", true, true,
                      HeadColumns::None, &AttentionTrace::masked, AttentionStage::Mask},
    AttentionStepInfo{AttentionStep::OnlineMax, "online_max", "batch,head,query,tile", true, false,
                      HeadColumns::None, &AttentionTrace::onlineMax, AttentionStage::OnlineSoftmax},
    AttentionStepInfo{AttentionStep::OnlineSum, "online_sum", "batch,head,query,tile", true, false,
                      HeadColumns::None, &AttentionTrace::onlineSum, AttentionStage::OnlineSoftmax},
    AttentionStepInfo{AttentionStep::Weights, "weights", "batch,head,query,key", true, true,
                      HeadColumns::None, &AttentionTrace::weights, AttentionStage::Softmax},
    AttentionStepInfo{AttentionStep::Context, "context", "batch,head,query,d_v", true, false,
                      HeadColumns::None, &AttentionTrace::context, AttentionStage::Context},
    AttentionStepInfo{AttentionStep::Concat, "concat", "batch,query,feature", false, false,
                      HeadColumns::Value, &AttentionTrace::concat, AttentionStage::Concat},
    AttentionStepInfo{AttentionStep::Output, "output", "batch,query,feature", false, false,
                      HeadColumns::None, &AttentionTrace::output, AttentionStage::Output},
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
