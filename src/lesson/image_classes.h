#pragma once

#include "engine/model_config.h"
#include "engine/model_trace.h"

#include <string>
#include <vector>

namespace attnviz::lesson {

/// One class of a Vision Transformer's classifier.
struct ClassScore {
    int index = 0;
    std::string label; ///< id2label's name, or "class i"
    double logit = 0;
    double probability = 0; ///< softmax over every class, in double
};

/// The `count` most probable classes of a run's `logits`, the most probable first (the lower
/// index among equals); empty for a model without a classifier.
std::vector<ClassScore> topClasses(const engine::ModelTrace& trace,
                                   const engine::ModelConfig& config, int count);

} // namespace attnviz::lesson
