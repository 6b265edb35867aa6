#pragma once

#include "engine/attention_trace.h"
#include "engine/model_trace.h"
#include "io/safetensors.h"

#include <string>

namespace attnviz::io {

/// Adds every step of `trace` to `writer` as F32 under `prefix + stepName` (`weights`,
/// `layer1.cross.weights`), with metadata naming each step's axes (`axes.weights` =
/// "batch,head,query,key") and the fully masked query rows. `masked` keeps its −∞.
void addAttentionTrace(SafetensorsWriter& writer, const engine::AttentionTrace& trace,
                       const std::string& prefix = "");

/// Adds every tensor of a model's forward pass under its trace name (`encoder.input`,
/// `layer1.cross.weights`, `decoder.logits`; see ModelTrace), with `axes.<name>` metadata and
/// the tokens as JSON arrays in `source_tokens` and `target_tokens`.
void addModelTrace(SafetensorsWriter& writer, const engine::ModelTrace& trace);

/// A JSON array of strings.
std::string jsonStringArray(const std::vector<std::string>& items);

} // namespace attnviz::io
