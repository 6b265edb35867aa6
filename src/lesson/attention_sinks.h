#pragma once

#include "engine/model_trace.h"
#include "lesson/heatmap.h"

#include <vector>

namespace attnviz::lesson {

/// Attention sinks (Xiao et al. 2023) in one picture per kind of self-attention block: layers
/// down, heads across, each cell the share of the head's weight that lands on the first token,
/// averaged over the queries that can see another token (query 0 of a causal block sees only
/// itself and says nothing). Read from the run's kept weights; nothing is recomputed.
struct AttentionSinkMap {
    engine::Block block;
    Heatmap heatmap; ///< values in [0, 1]
    double mean = 0; ///< over every head of every layer
};

/// The maps of `trace`'s self-attention blocks (encoder and decoder); cross-attention reads
/// another sequence, whose first token is not the queries' own. Empty when the run kept no
/// weights or has fewer than two tokens.
std::vector<AttentionSinkMap> attentionSinkMaps(const engine::ModelTrace& trace);

} // namespace attnviz::lesson
