#pragma once

#include "engine/attention_weights.h"
#include "engine/transformer_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// The learned numbers of one weight matrix and its bias.
struct MatrixParameters {
    std::string name; ///< "W_q"
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t biases = 0; ///< 0 without a bias
    std::int64_t weights() const { return rows * cols; }
    std::int64_t total() const { return weights() + biases; }
};

/// W_q, W_k, W_v and W_o of one attention module with their biases: what PyTorch's
/// `sum(p.numel() for p in nn.MultiheadAttention(...).parameters())` counts (1,050,624 for
/// (512, 8)).
std::vector<MatrixParameters> attentionParameters(const engine::AttentionWeights& weights);
std::int64_t totalParameters(const std::vector<MatrixParameters>& matrices);
std::int64_t totalWeights(const std::vector<MatrixParameters>& matrices); ///< without biases

/// A whole model's parameters as its module holds them (a tied output matrix counted once).
struct ModelParameters {
    std::int64_t embeddings = 0; ///< tokens, learned positions, segments, embedding LayerNorm
    std::vector<std::int64_t> encoderLayers; ///< attention + feed-forward + their LayerNorms
    std::vector<std::int64_t> decoderLayers;
    std::int64_t finalNorms = 0;
    std::int64_t output = 0; ///< an untied output matrix and its bias
    std::int64_t total() const;
};
ModelParameters modelParameters(const engine::TransformerModel& model);

/// The keys and values one token leaves in a decoder's K/V cache, over every layer's
/// self-attention: 2 · layers · H_kv · head size values. Grouped K/V heads are what make it
/// small (Llama 3.2 1B: 2 · 16 · 8 · 64 = 16,384 values, 32 KiB in 16-bit floats, a quarter of
/// what 32 separate K/V heads would keep).
std::int64_t keyValueCacheValuesPerToken(const engine::ModelConfig& config);

/// "1,050,624": thousands grouped as people read them.
std::string groupedNumber(std::int64_t n);

} // namespace attnviz::lesson
