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

engine::LayerWeights StreamedLayers::load(int layer, engine::LayerPart part) const
{
    // The layout sizes a whole set of weights and visits every slot in the order `found` was
    // made in; only this layer's slots are filled. Sizing costs nothing next to reading.
    engine::ModelWeights weights;
    std::vector<WeightSlot> slots;
    m_layout.forEachWeight(m_config, weights,
                           [&](WeightSlot slot) { slots.push_back(std::move(slot)); });
    std::vector<char> buffer; // one allocation for the layer's tensors, the largest's size
    try {
        for (std::size_t i = 0; i < slots.size() && i < m_found.size(); ++i)
            if (slots[i].layer == layer && m_found[i] &&
                (part == engine::LayerPart::Whole || !slots[i].feedForward)) {
                const TensorEntry read = m_files->readInto(*m_found[i], buffer);
                slots[i].fill(StoredTensor(read, m_files->label()));
            }
    } catch (const ModelError& e) {
        // File errors come without a full stop, ModelErrors with one: the sentence gets one.
        std::string why = e.what();
        if (why.ends_with('.'))
            why.pop_back();
        throw engine::InputError("Layer " + std::to_string(layer) + " cannot be read: " + why +
                                 ".");
    }
    engine::StackWeights& stack = m_config.hasEncoder() ? weights.encoder : weights.decoder;
    if (layer < 0 || static_cast<std::size_t>(layer) >= stack.layers.size())
        throw engine::InputError("The model has no layer " + std::to_string(layer) + ".");
    return std::move(stack.layers[static_cast<std::size_t>(layer)]);
}

} // namespace attnviz::io
