#pragma once

#include "engine/attention_weights.h"
#include "engine/feed_forward.h"
#include "engine/layer_norm.h"
#include "engine/model_config.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace attnviz::engine {

/// The sublayers of a Transformer layer. Their names are part of every tensor name: weights
/// (`decoder.layers.0.cross.q_proj.weight`) and trace (`layer0.cross.weights`).
enum class Block { Self, MaskedSelf, Cross, EncoderFeedForward, DecoderFeedForward };

/// "self", "masked_self", "cross", "enc_ffn", "dec_ffn"
const char* blockName(Block block);
bool isAttention(Block block);

struct AttentionSublayerWeights {
    Block block = Block::Self;
    AttentionWeights attention;
    LayerNormWeights norm;
};

struct LayerWeights {
    std::vector<AttentionSublayerWeights> attention; ///< self; or masked_self then cross
    FeedForwardWeights feedForward;
    LayerNormWeights feedForwardNorm;
};

struct StackWeights {
    RowMatrix embedding;  ///< [vocab, D]
    RowMatrix positional; ///< [max_length, D] when positions are learned, else empty
    std::vector<LayerWeights> layers;
    std::optional<LayerNormWeights> finalNorm;
};

struct ModelWeights {
    StackWeights encoder; ///< empty for a decoder-only model
    StackWeights decoder; ///< empty for an encoder-only model
    RowMatrix output;     ///< [vocab, D]: the decoder's logits
    std::optional<Eigen::RowVectorXf> outputBias;
};

/// A tensor a model file must hold: its name in model.safetensors and its shape.
struct WeightSpec {
    std::string name;
    std::vector<std::int64_t> shape;
};

/// Every tensor `config` calls for, in a stable order (docs/model-format.md).
std::vector<WeightSpec> weightSpecs(const ModelConfig& config);

/// Builds the weights from named float data; `tensor(name)` returns the row-major values of a
/// spec'd tensor, whose shape the caller has already checked against `weightSpecs(config)`.
ModelWeights assembleWeights(const ModelConfig& config,
                             const std::function<std::span<const float>(const std::string&)>& tensor);

} // namespace attnviz::engine
