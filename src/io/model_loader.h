#pragma once

#include "engine/transformer_model.h"
#include "io/json.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace attnviz::io {

/// A model folder that cannot be used; the message is one sentence naming the file, the field or
/// tensor, what was expected and what was found.
class ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads a model folder (docs/model-format.md): config.json, vocab.json and model.safetensors.
/// Every tensor is checked against the configuration before anything is built; a missing, extra,
/// misshapen or non-F32 tensor is refused with ModelError.
std::shared_ptr<const engine::TransformerModel> loadModel(const std::string& folder);

/// The configuration part of loadModel, for tests and tools.
engine::ModelConfig parseModelConfig(const JsonValue& json);

} // namespace attnviz::io
