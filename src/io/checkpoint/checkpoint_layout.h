#pragma once

#include "engine/model_config.h"
#include "engine/model_weights.h"
#include "io/checkpoint/stored_tensor.h"
#include "io/json.h"
#include "io/tokenizer/tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// One tensor a layout expects in a checkpoint, and where its values go in the engine's weights.
struct WeightSlot {
    /// The tensor's name in the file; alternatives follow the first (BERT's `LayerNorm.gamma`
    /// for `LayerNorm.weight`). A layout's name prefix (`transformer.`) is added by the loader.
    std::vector<std::string> names;
    std::vector<std::int64_t> shape; ///< as stored in the file
    /// Receives the values, row-major in the stored shape, to convert into the engine's field.
    /// Called only after every slot's name and shape were checked.
    std::function<void(const StoredTensor&)> fill;
    bool required = true; ///< false: may be absent
    /// The name is looked up as it is, without the layout's prefix (GPT-2's `lm_head.weight`
    /// sits beside `transformer.*`).
    bool unprefixed = false;
    /// The layer of the stack whose weights this fills, -1 for the rest (embeddings, final
    /// norm, output). A model whose every layer slot says so can stream its layers.
    int layer = -1;
    /// Part of the layer's feed-forward block (its norm included): left unread when only the
    /// layer's attention is recomputed (engine::LayerPart::Attention).
    bool feedForward = false;
};

using WeightVisitor = std::function<void(WeightSlot)>;

/// How one family of checkpoints describes a model: its config.json keys, its tokenizer files,
/// and the names, shapes and storage of its tensors. One visitor, forEachWeight, walks every
/// tensor once, and drives both the checks and the filling of the weights (the gemma.cpp habit:
/// one ForEachTensor, never two lists of names that can drift apart). A new layout is one new
/// file and one row in checkpointLayouts().
class CheckpointLayout {
public:
    virtual ~CheckpointLayout() = default;

    /// "attnviz", "gpt2", "bert": what the docs and messages call the layout.
    virtual std::string_view name() const = 0;
    /// For the sentence that lists what AttnViz opens: "Hugging Face GPT-2 (model_type gpt2)".
    virtual std::string_view description() const = 0;
    /// Whether a config.json is this layout's.
    virtual bool recognises(const JsonValue& config) const = 0;
    /// The model's configuration from config.json; throws ModelError naming the field at fault.
    virtual engine::ModelConfig parseConfig(const JsonValue& config) const = 0;
    /// Reads the folder's tokenizer files (config.json may name some of it); sets the special
    /// token ids of `config`.
    virtual std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& folder,
                                                     const JsonValue& json,
                                                     engine::ModelConfig& config) const = 0;
    /// Prefixes a checkpoint may put before every name (`transformer.`, `bert.`); "" first.
    virtual std::vector<std::string> namePrefixes() const { return {""}; }
    /// Tensors a checkpoint may hold that the model does not use (attention-mask buffers, a
    /// pooler, a pre-training head), named without prefix.
    virtual bool ignores(std::string_view name) const { return name.empty(); }
    /// Sizes `weights` for `config` and calls `visit` for every tensor, in a stable order.
    virtual void forEachWeight(const engine::ModelConfig& config, engine::ModelWeights& weights,
                               const WeightVisitor& visit) const = 0;
};

/// Every layout AttnViz reads, AttnViz's own first (checkpoint_layouts.cpp holds the table).
const std::vector<const CheckpointLayout*>& checkpointLayouts();

/// The layouts, one per file of this folder.
const CheckpointLayout& attnvizLayout();
const CheckpointLayout& gpt2Layout();
const CheckpointLayout& bertLayout();
const CheckpointLayout& llamaFamilyLayout(); ///< Llama, Mistral, Qwen2 (and SmolLM, TinyLlama)
const CheckpointLayout& vitLayout(); ///< Vision Transformers: ViT, DeiT

} // namespace attnviz::io
