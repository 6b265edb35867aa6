#pragma once

#include "engine/attention_weights.h"
#include "engine/block.h"
#include "engine/feed_forward.h"
#include "engine/layer_norm.h"
#include "engine/model_config.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::engine {

/// A sublayer's norms, as its SublayerNorms place them: `norm` before the sublayer (pre-norm) or
/// after the residual add (post-norm), `outputNorm` on the sublayer's output (Gemma's sandwich).
struct AttentionSublayerWeights {
    Block block = Block::Self;
    AttentionWeights attention;
    LayerNormWeights norm;
    std::optional<LayerNormWeights> outputNorm;
};

struct LayerWeights {
    std::vector<AttentionSublayerWeights> attention; ///< self; or masked_self then cross
    FeedForwardWeights feedForward;
    LayerNormWeights feedForwardNorm;
    std::optional<LayerNormWeights> feedForwardOutputNorm;
};

struct StackWeights {
    RowMatrix embedding; ///< [vocab, D]
    RowMatrix positional; ///< [max_length, D] when positions are learned, else empty
    RowMatrix tokenType; ///< [type_vocab_size, D] (BERT's segments), else empty
    std::optional<LayerNormWeights> embeddingNorm; ///< BERT: LayerNorm over the summed embeddings
    std::vector<LayerWeights> layers;
    std::optional<LayerNormWeights> finalNorm;
};

/// How much of a layer a pass needs. A block's attention recomputed for its walkthrough stops
/// before the feed-forward block, which holds five sixths of a Llama layer's weights: reading
/// and converting those would be most of the time a switch of layer takes.
enum class LayerPart { Whole, Attention };

/// Where the layers of a model too big to hold as floats come from, one at a time: a pass loads a
/// layer when it reaches it and lets it go after. A 1B-parameter checkpoint is 2.5 GB in BF16 and
/// 5 GB as floats; streamed, a pass holds the embedding and one layer (a quarter of a GB).
class LayerSource {
public:
    virtual ~LayerSource() = default;
    /// Layer `layer` of the model's only stack; with LayerPart::Attention its feed-forward
    /// weights and norm stay empty. Throws InputError when it can no longer be read (the file
    /// changed since the model was opened).
    virtual LayerWeights load(int layer, LayerPart part) const = 0;
};

/// What a Vision Transformer adds to an encoder's weights (ModelConfig::image).
struct ImageWeights {
    RowMatrix patchProjection; ///< [D, channels · P · P]: a patch flattened as (channel, y, x)
    Eigen::RowVectorXf patchBias; ///< [D]
    Eigen::RowVectorXf clsToken; ///< [D]
    std::optional<Eigen::RowVectorXf> distillationToken; ///< [D], DeiT
    RowMatrix classifier; ///< [classes, D] over the CLS token; empty without a classifier
    Eigen::RowVectorXf classifierBias;
    RowMatrix distillationClassifier; ///< [classes, D] over the distillation token (DeiT)
    Eigen::RowVectorXf distillationClassifierBias;
};

/// A model's weights, laid out as the engine computes with them (`nn.Linear`: W [out, in]).
/// How a checkpoint's tensors map onto these fields is the business of a checkpoint layout
/// (io/checkpoint), not of the engine.
struct ModelWeights {
    StackWeights encoder; ///< empty for a decoder-only model
    StackWeights decoder; ///< empty for an encoder-only model
    RowMatrix output; ///< [vocab, D]: the decoder's logits; empty when tied to the embedding
    std::optional<Eigen::RowVectorXf> outputBias;
    std::optional<ImageWeights> image; ///< a Vision Transformer's; the encoder's `embedding` is
                                       ///< then empty
    /// Set for a streamed model with one stack: that stack's `layers` stay empty and each layer
    /// is loaded from here when used.
    std::shared_ptr<const LayerSource> layerSource;
};

} // namespace attnviz::engine
