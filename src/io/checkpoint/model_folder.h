#pragma once

#include "engine/transformer_model.h"
#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/model_error.h"
#include "io/tokenizer/tokenizer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace attnviz::io {

/// A model opened from a folder, with the tokenizer it was trained with.
struct LoadedModel {
    std::shared_ptr<const engine::TransformerModel> model;
    std::shared_ptr<const Tokenizer> tokenizer;
    const CheckpointLayout* layout = nullptr;
    std::string folder;
};

/// Asked once every tensor is found and checked, before any is converted: the bytes opening the
/// model takes at its peak, and the model's name. It throws to refuse, so that a caller can hold
/// loading to its memory budget (--max-memory) before the weights are read.
using LoadingCheck = std::function<void(std::uint64_t peakBytes, const std::string& modelName)>;

/// Whether a model's layers are held in memory as floats or read from the checkpoint each time a
/// pass needs one (engine::LayerSource). Automatic: streamed when the layers as floats would take
/// more than 1 GiB, for a model with one stack whose layout marks its layers' slots.
enum class LayerStreaming { Automatic, Always, Never };

/// Opens a model folder in any layout of checkpointLayouts(): AttnViz's own (config.json,
/// vocab.json, model.safetensors; docs/model-format.md) or a Hugging Face folder as
/// save_pretrained writes it. Every tensor is checked against the configuration before any is
/// converted, and every weight is checked to be finite; anything wrong is a ModelError of one
/// sentence naming the file, the field or tensor, what was expected and what was found. A model
/// that cannot fit in the machine's memory at all is refused whatever `check` says.
LoadedModel loadModel(const std::string& folder, const LoadingCheck& check = {},
                      LayerStreaming streaming = LayerStreaming::Automatic);

} // namespace attnviz::io
