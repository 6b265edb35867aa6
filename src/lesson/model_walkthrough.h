#pragma once

#include "lesson/model_run.h"
#include "lesson/walkthrough.h"

#include <memory>

namespace attnviz::lesson {

/// Which attention block of a model run to walk through.
struct BlockChoice {
    int layer = 0;
    engine::Block block = engine::Block::Self;
    int decodingStep = -1; ///< -1: the run's final trace; k: the trace of greedy decoding step k
    bool operator==(const BlockChoice&) const = default;
};

/// One attention block of a model run as a walkthrough. The block's trace is shared with the run
/// when the run kept the steps `needed` asks for (a large run keeps only the attention weights);
/// otherwise its layer is recomputed alone from the residual stream the run kept. With fewer
/// than all steps needed, `queryInput` is null when the run did not keep what the block read.
/// Throws engine::InputError when the run has no such block.
std::shared_ptr<const Walkthrough> walkthroughForBlock(
    const std::shared_ptr<const ModelRun>& run, const BlockChoice& choice,
    const engine::AttentionKeep& needed = engine::AttentionKeep::all());

/// The tokens as shown along the query and key axes of a block.
std::vector<std::string> displayTokens(const ModelRun& run, const std::vector<int>& ids);

} // namespace attnviz::lesson
