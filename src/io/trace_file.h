#pragma once

#include "engine/attention_trace.h"
#include "engine/tensor.h"
#include "io/safetensors.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnviz::io {

/// Writes an AttnViz trace: every tensor as F32 in a safetensors file, plus a manifest that
/// numpy or torch users read without AttnViz. One writer and one manifest schema serve
/// `attnviz-cli mha --dump`, `trace --dump`, `export --format safetensors` and the app
/// (docs/case-format.md describes the schema). Tensors stream to disk as they are added.
///
/// The manifest's top-level fields are the caller's (`kind`, `model`, tokens, ids, text, ...);
/// the writer adds `format`, `version`, `data` and `tensors` (name, dtype, shape, axes). In the
/// safetensors metadata every top-level field is repeated as a string (JSON text unless it is a
/// string), with `axes.<name>` per tensor and `format` = "attnviz-trace" (one attention module)
/// or "attnviz-model-trace" (a whole model).
class TraceFileWriter {
public:
    /// `path` is the .safetensors file; with `sidecar`, the manifest is also written as JSON
    /// beside it (`trace.safetensors` → `trace.json`). `expectedTensors` sizes the header room.
    TraceFileWriter(std::string path, bool sidecar, std::size_t expectedTensors = 64);

    void add(const std::string& name, const engine::Tensor& tensor);
    /// Every kept step of a single-module trace under `prefix + stepName`, and its fully masked
    /// rows in the manifest (`fully_masked_rows`, [[batch, query], ...]).
    void addAttentionTrace(const engine::AttentionTrace& trace, const std::string& prefix = "");
    /// Writes the header (and the sidecar): nothing appears at the paths before this succeeds.
    /// `manifest` must hold "kind": "attention" or "model". Throws FileError.
    void commit(nlohmann::ordered_json manifest);

    /// The sidecar path for a trace path (`x.safetensors` → `x.json`).
    static std::string sidecarPath(const std::string& path);

private:
    std::string m_path;
    bool m_sidecar;
    SafetensorsWriter m_writer;
    nlohmann::ordered_json m_tensors = nlohmann::ordered_json::array();
    nlohmann::ordered_json m_maskedRows;
};

} // namespace attnviz::io
