#pragma once

#include "engine/attention_trace.h"
#include "engine/model_trace.h"
#include "engine/transformer_model.h"

#include <string>

namespace attnviz::exporting {

/// Writes a whole trace as `<base>.safetensors` (every tensor, F32) and `<base>.json`, a manifest
/// numpy or torch users read without AttnViz: the tensors with their shapes, axis names and
/// dtype, the tokens, and the configuration. Both files are written atomically.
void writeModelTrace(const std::string& base, const engine::TransformerModel& model, const engine::ModelTrace& trace);
void writeAttentionTrace(const std::string& base, const engine::AttentionTrace& trace,
                         const std::vector<std::vector<std::string>>& queryTokens,
                         const std::vector<std::vector<std::string>>& keyTokens, const std::string& configurationJson);

} // namespace attnviz::exporting
