#pragma once

#include "engine/model_config.h"
#include "engine/model_trace.h"
#include "lesson/heatmap.h"

#include <Eigen/Core>

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace attnviz::lesson {

/// How a layer's heads become one matrix before the rollout: their mean, or the largest or the
/// smallest weight of each cell.
enum class HeadFusion { Mean, Max, Min };

struct HeadFusionInfo {
    HeadFusion fusion;
    std::string_view name; ///< "mean", "max", "min": --head-fusion, files, the app's menu
};

inline constexpr std::array kHeadFusions = {HeadFusionInfo{HeadFusion::Mean, "mean"},
                                            HeadFusionInfo{HeadFusion::Max, "max"},
                                            HeadFusionInfo{HeadFusion::Min, "min"}};

std::string_view headFusionName(HeadFusion fusion);
std::optional<HeadFusion> headFusionFromName(std::string_view name);

struct RolloutOptions {
    HeadFusion fusion = HeadFusion::Mean;
    /// r in [0, 1]: in each fused matrix the ⌊r · N⌋ smallest off-diagonal entries of each row
    /// are set to 0 before the identity is added (the diagonal is never discarded).
    double discardRatio = 0;
};

/// Attention rollout (Abnar & Zuidema, 2020) of the stack that holds `block` (its layers in
/// order), from batch item 0 of the run's kept weights: per layer, the heads fused into A_l,
/// entries discarded, then Ã_l = normalise_rows(½ · (A_l + I)) — each *row* sums to 1 (vit-explain
/// normalises columns: its issue #16) — and the rollout Ã_L ⋯ Ã_1, in double. Row i says how much
/// of what token i holds after the last layer came from each input token. Throws
/// engine::InputError for a ratio outside [0, 1] (or not a number), a block the trace has no
/// weights of, or blocks that are not self-attention (cross-attention mixes two sequences).
Eigen::MatrixXd attentionRollout(const engine::ModelTrace& trace, engine::Block block,
                                 const RolloutOptions& options = {});

/// The same over the weights of a stack's layers in order, each [1, H, N, N] (what the trace-level
/// rollout reads; a test feeds it reference weights).
Eigen::MatrixXd attentionRollout(const std::vector<const engine::Tensor*>& layerWeights,
                                 const RolloutOptions& options = {});

/// The block whose stack a rollout reads by default, the model's first attention stack: the
/// encoder's self-attention when there is an encoder, else the decoder's masked
/// self-attention.
engine::Block firstAttentionStack(const engine::ModelConfig& config);

/// The rollout as a heatmap over the stack's tokens (rows: where the information is after the
/// last layer; columns: the input token it came from), values in [0, 1]; `labels` name the
/// tokens.
Heatmap rolloutHeatmap(Eigen::MatrixXd rollout, std::vector<std::string> labels,
                       const RolloutOptions& options);

} // namespace attnviz::lesson
