#pragma once

#include "engine/model_run.h"
#include "engine/transformer_model.h"

#include <memory>
#include <optional>
#include <string>

namespace attnviz::cli {

/// A model and its run on a text, as `trace` and `export` take them from --model, --text,
/// --target and --generate.
struct ModelOnText {
    std::shared_ptr<const engine::TransformerModel> model;
    engine::ModelRun run;
};

/// Loads `modelName` (a folder or a bundled demo's name) and runs it. Throws engine::InputError
/// with one sentence: the model name first when the folder cannot be loaded, or why the text,
/// target or --generate does not fit the model.
ModelOnText runModelOnArguments(const std::string& modelName, const std::string& text,
                                const std::optional<std::string>& target, int generate);

} // namespace attnviz::cli
