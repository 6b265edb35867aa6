#pragma once

#include "engine/model_config.h"
#include "engine/model_weights.h"
#include "io/checkpoint/checkpoint_files.h"
#include "io/checkpoint/checkpoint_layout.h"

#include <memory>
#include <vector>

namespace attnviz::io {

/// The layers of an opened checkpoint, read from its files each time a pass reaches one: how a
/// model too big to hold as floats is opened (engine::LayerSource). Each read goes through
/// read calls, not the mapping, so a file changed or truncated since opening gives a sentence,
/// not a crash.
class StreamedLayers : public engine::LayerSource {
public:
    /// `found[i]` is the checked tensor of the i-th slot layout.forEachWeight(config, ...)
    /// visits (null for an optional one that is absent).
    StreamedLayers(std::shared_ptr<const CheckpointFiles> files, const CheckpointLayout& layout,
                   engine::ModelConfig config, std::vector<const TensorEntry*> found);

    engine::LayerWeights load(int layer, engine::LayerPart part) const override;

private:
    std::shared_ptr<const CheckpointFiles> m_files;
    const CheckpointLayout& m_layout;
    engine::ModelConfig m_config;
    std::vector<const TensorEntry*> m_found;
};

} // namespace attnviz::io
