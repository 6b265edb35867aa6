#pragma once

#include "engine/attention_trace.h"
#include "engine/feed_forward.h"
#include "engine/model_weights.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::engine {

/// One sublayer with its residual connection and LayerNorm. With pre-norm, `norm` is the
/// normalised input the sublayer reads and `residual` the block's output; with post-norm,
/// `residual` = x + sublayer(x) and `norm` (its normalisation) the block's output.
struct AttentionBlockTrace {
    Block block = Block::Self;
    AttentionTrace attention;
    Tensor norm;
    Tensor residual;
};

struct FeedForwardBlockTrace {
    Block block = Block::EncoderFeedForward;
    FeedForwardTrace feedForward;
    Tensor norm;
    Tensor residual;
};

struct LayerTrace {
    std::vector<AttentionBlockTrace> attention; ///< self; or masked_self then cross
    FeedForwardBlockTrace feedForward;
    const Tensor& output(NormPosition norm) const;
};

/// An encoder's or a decoder's activations, `[batch, token, feature]` each.
struct StackTrace {
    Tensor embedding;  ///< token embeddings (× √d_model when the model scales them)
    Tensor positional; ///< the positional encoding added to them
    Tensor input;      ///< embedding + positional: what layer 0 reads
    std::vector<LayerTrace> layers;
    Tensor finalNorm;  ///< empty unless the model has a final LayerNorm
};

/// Every activation of one forward pass of a Transformer model.
///
/// Dump names (`attnviz-cli trace`, docs/model-format.md): `encoder.embedding`,
/// `encoder.positional`, `encoder.input`, `encoder.final_norm`, the same under `decoder.`,
/// `decoder.logits`, and per layer `layer{L}.{block}.{step}`: the thirteen attention steps of
/// AttentionTrace plus `norm` and `residual` for the attention blocks (self, masked_self, cross),
/// and `hidden_pre`, `hidden`, `output`, `norm`, `residual` for the feed-forward blocks
/// (enc_ffn, dec_ffn). An encoder-decoder model's encoder layer L and decoder layer L share the
/// prefix `layer{L}`; their block names tell them apart.
struct ModelTrace {
    std::vector<std::string> sourceTokens; ///< the encoder's input tokens
    std::vector<std::string> targetTokens; ///< the decoder's input tokens
    std::optional<StackTrace> encoder;
    std::optional<StackTrace> decoder;
    Tensor logits; ///< [batch, token, vocab]; empty for an encoder-only model

    /// Calls `visit(name, tensor)` for every tensor in computation order.
    void forEachTensor(const std::function<void(const std::string&, const Tensor&)>& visit) const;
    /// The attention block `block` of layer `layer`, or nullptr when the model has none there.
    const AttentionBlockTrace* attentionBlock(int layer, Block block) const;
    /// The attention blocks present at a layer, in computation order.
    std::vector<Block> attentionBlocks(int layer) const;
    int layerCount() const;
    /// The tokens along the query and the key axis of an attention block.
    const std::vector<std::string>& queryTokens(Block block) const;
    const std::vector<std::string>& keyTokens(Block block) const;
};

} // namespace attnviz::engine
