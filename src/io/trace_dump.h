#pragma once

#include "engine/attention_trace.h"
#include "io/safetensors.h"

#include <string>

namespace attnviz::io {

/// Adds every step of `trace` to `writer` as F32 under `prefix + stepName` (`weights`,
/// `layer1.cross.weights`), with metadata naming each step's axes (`axes.weights` =
/// "batch,head,query,key") and the fully masked query rows. `masked` keeps its −∞.
void addAttentionTrace(SafetensorsWriter& writer, const engine::AttentionTrace& trace,
                       const std::string& prefix = "");

} // namespace attnviz::io
