#pragma once

#include "app/playground.h"
#include "engine/model_run.h"
#include "engine/transformer_model.h"

#include <memory>

namespace attnviz::app {

/// Which attention block of a model run to walk through.
struct BlockChoice {
    int layer = 0;
    engine::Block block = engine::Block::Self;
    int decodingStep = -1; ///< -1: the run's final trace; k: the trace of greedy decoding step k
    bool operator==(const BlockChoice&) const = default;
};

/// One attention block of a model run as a walkthrough the step panel can show: X is what the
/// block reads (the previous layer's output, normalised first with pre-norm), the weights are the
/// block's own, the trace is the block's slice of the model trace.
std::shared_ptr<const Walkthrough> walkthroughForBlock(const engine::TransformerModel& model,
                                                       const engine::ModelRun& run, const BlockChoice& choice);

/// The trace a choice refers to (the final one or a decoding step's).
const engine::ModelTrace& traceFor(const engine::ModelRun& run, int decodingStep);

} // namespace attnviz::app
