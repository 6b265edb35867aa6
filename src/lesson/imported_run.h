#pragma once

#include "io/attention_import.h"
#include "lesson/model_run.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnviz::lesson {

/// Attention weights computed elsewhere (docs/attention-import.md) as a model run, so the
/// overview, the head views and every export read them like a run of AttnViz's own: layer L's
/// weights become the block `masked_self` (a causal file), `cross` (one with query and key
/// tokens) or `self` (otherwise) of layer L. There is no model: `run.model->model` is null, the
/// tokenizer spells the file's tokens, and walkthroughs of its blocks hold the weights only.
/// `fileName` names the run when the file names no model.
std::shared_ptr<const ModelRun> importedRun(io::ImportedAttentions attentions,
                                            const std::string& fileName);

/// Reads `path` as an attention import (io::readAttentionImport) and makes it a run, held to
/// MemoryBudget with `maxMemory` before any weight is read. Throws std::invalid_argument with one
/// sentence naming the file when it cannot be read or is not a valid import, engine::InputError
/// when it needs more memory than the budget allows.
std::shared_ptr<const ModelRun> openImportedRun(const std::string& path,
                                                std::optional<std::uint64_t> maxMemory = {});

} // namespace attnviz::lesson
