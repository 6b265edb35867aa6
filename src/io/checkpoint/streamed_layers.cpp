#include "io/checkpoint/streamed_layers.h"

#include "engine/input_error.h"
#include "io/checkpoint/model_error.h"

namespace attnviz::io {

StreamedLayers::StreamedLayers(std::shared_ptr<const CheckpointFiles> files,
                               const CheckpointLayout& layout, engine::ModelConfig config,
                               std::vector<const TensorEntry*> found)
    : m_files(std::move(files))
    , m_layout(layout)
    , m_config(std::move(config))
    , m_found(std::move(found))
{
}

engine::LayerWeights StreamedLayers::load(int layer) const
{
    // The layout sizes a whole set of weights and visits every slot in the order `found` was
    // made in; only this layer's slots are filled. Sizing costs nothing next to reading.
    engine::ModelWeights weights;
    std::vector<WeightSlot> slots;
    m_layout.forEachWeight(m_config, weights,
                           [&](WeightSlot slot) { slots.push_back(std::move(slot)); });
    try {
        for (std::size_t i = 0; i < slots.size() && i < m_found.size(); ++i)
            if (slots[i].layer == layer && m_found[i])
                slots[i].fill(m_files->readFloats(*m_found[i]));
    } catch (const ModelError& e) {
        throw engine::InputError(std::string("Layer ") + std::to_string(layer) +
                                 " cannot be read: " + e.what());
    }
    engine::StackWeights& stack = m_config.hasEncoder() ? weights.encoder : weights.decoder;
    if (layer < 0 || static_cast<std::size_t>(layer) >= stack.layers.size())
        throw engine::InputError("The model has no layer " + std::to_string(layer) + ".");
    return std::move(stack.layers[static_cast<std::size_t>(layer)]);
}

} // namespace attnviz::io
