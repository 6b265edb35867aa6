#pragma once

// A model of any shape with random weights, for benchmarks: the AttnViz layout's weight visitor
// names every tensor, and each is filled with seeded noise (LayerNorm gains with ones).
#include "engine/transformer_model.h"
#include "io/checkpoint/checkpoint_layout.h"

#include <memory>
#include <random>

namespace attnviz::bench {

inline std::shared_ptr<const engine::TransformerModel> randomModel(
    const engine::ModelConfig& config, unsigned seed = 1)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    engine::ModelWeights weights;
    std::vector<float> values;
    io::attnvizLayout().forEachWeight(config, weights, [&](io::WeightSlot slot) {
        std::size_t n = 1;
        for (const auto d : slot.shape)
            n *= static_cast<std::size_t>(d);
        values.resize(n);
        const bool gain = slot.names.front().ends_with("norm.weight");
        for (float& v : values)
            v = gain ? 1.0f : normal(random);
        slot.fill(values);
    });
    return std::make_shared<const engine::TransformerModel>(config, std::move(weights));
}

} // namespace attnviz::bench
