#pragma once

// A model of any shape with random weights, for benchmarks: the AttnViz layout's weight visitor
// names every tensor, and each is filled with seeded noise (LayerNorm gains with ones). `stddev`
// is the noise's spread (GPT-2 initialises with 0.02); a tied output drops the separate output
// matrix and bias.
#include "engine/transformer_model.h"
#include "io/checkpoint/checkpoint_layout.h"

#include <memory>
#include <random>

namespace attnviz::bench {

inline std::shared_ptr<const engine::TransformerModel> randomModel(
    const engine::ModelConfig& config, unsigned seed = 1, float stddev = 0.3f)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, stddev);
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
        io::TensorEntry entry{slot.names.front(),
                              io::DType::F32,
                              slot.shape,
                              {reinterpret_cast<const char*>(values.data()), n * sizeof(float)}};
        slot.fill(io::StoredTensor(entry, "random"));
    });
    if (config.tiedOutput) { // the AttnViz layout always names the output matrix and bias
        weights.output = engine::RowMatrix();
        weights.outputBias.reset(); // as GPT-2, whose logits are the embedding's products alone
    }
    return std::make_shared<const engine::TransformerModel>(config, std::move(weights));
}

} // namespace attnviz::bench
