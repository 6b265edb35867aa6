#pragma once

#include "lesson/model_run.h"
#include "lesson/walkthrough.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnviz::lesson {

/// The manifest of a model run's trace (io::TraceFileWriter): `kind` "model", the model's name,
/// architecture, heads and layers, its whole configuration, the text, target and generated
/// text, and the tokens with their ids (`source_tokens`, `source_ids`, `target_tokens`,
/// `target_ids`; tokens as the vocabulary spells them).
nlohmann::ordered_json modelManifest(const ModelRun& run);

/// The manifest of one attention module's trace: `kind` "attention", `num_heads`, `causal`, the
/// module's configuration, what it came from, and the tokens per batch item.
nlohmann::ordered_json walkthroughManifest(const Walkthrough& w);

/// Writes every tensor of a model run's trace to `path` (and the manifest beside it as JSON with
/// `sidecar`). Throws io::FileError.
void writeModelTrace(const std::string& path, const ModelRun& run, bool sidecar);

/// Writes every step of one attention module's trace. Throws io::FileError.
void writeWalkthroughTrace(const std::string& path, const Walkthrough& w, bool sidecar);

} // namespace attnviz::lesson
