#pragma once

#include "engine/model_trace.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/heatmap.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace attnviz::lesson {

/// Attention sinks (Xiao et al. 2023) in one picture per kind of self-attention block: layers
/// down, heads across, each cell the share of the head's weight that lands on the first token,
/// averaged over the queries that can see it and another token (a sliding window leaves it behind
/// after W queries; query 0 of a causal block sees only
/// itself and says nothing). Read from the run's kept weights; nothing is recomputed.
struct AttentionSinkMap {
    engine::Block block;
    Heatmap heatmap; ///< values in [0, 1]
    double mean = 0; ///< over every head of every layer
};

/// The share of head `head`'s weight on key 0 in batch item `batch`, averaged over the query rows
/// that see key 0 and another key (the cells of the maps below).
double firstTokenShare(const engine::AttentionTrace& trace, std::int64_t batch, std::int64_t head);

/// Xiao et al.'s experiment on the model shown: the text run again without its first token. A
/// model that parks weight on its first token keeps parking it on whatever comes first, and its
/// predictions of the same later tokens get worse.
struct FirstTokenRemoved {
    std::vector<AttentionSinkMap> with; ///< the text as it is
    std::vector<AttentionSinkMap> without; ///< the text after its first token: the share on the
                                           ///< token that is now first
    int predictions = 0; ///< the tokens both runs predict: the third token on
    /// Mean cross-entropy of those predictions, in nats, with and without the first token.
    double lossWith = 0;
    double lossWithout = 0;
    int changedChoices = 0; ///< of those predictions, how many greedy choices differ
};

/// Runs a decoder-only model on `ids` and on `ids` without its first token (attention weights and
/// logits kept). Throws engine::InputError for a model that is not decoder-only (the comparison
/// is of next-token predictions), for fewer than 3 tokens, or when the runs would pass
/// MemoryBudget with `maxMemory`.
FirstTokenRemoved withoutFirstToken(const io::LoadedModel& model, const std::vector<int>& ids,
                                    std::optional<std::uint64_t> maxMemory = {});

/// The maps of `trace`'s self-attention blocks (encoder and decoder); cross-attention reads
/// another sequence, whose first token is not the queries' own. Empty when the run kept no
/// weights or has fewer than two tokens.
std::vector<AttentionSinkMap> attentionSinkMaps(const engine::ModelTrace& trace);

} // namespace attnviz::lesson
