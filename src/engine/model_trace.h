#pragma once

#include "engine/attention_trace.h"
#include "engine/feed_forward.h"
#include "engine/model_weights.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::engine {

/// One sublayer with its residual connection and norms (SublayerNorms). With pre-norm, `norm` is
/// the normalised input the sublayer reads and `residual` the block's output; with post-norm,
/// `residual` = x + sublayer(x) and `norm` (its normalisation) the block's output; with Gemma's
/// sandwich, `outputNorm` is the sublayer's output normalised before it joins the residual.
struct AttentionBlockTrace {
    Block block = Block::Self;
    AttentionTrace attention;
    Tensor norm;
    Tensor outputNorm; ///< empty without a norm after the sublayer
    Tensor residual;
};

struct FeedForwardBlockTrace {
    Block block = Block::EncoderFeedForward;
    FeedForwardTrace feedForward;
    Tensor norm;
    Tensor outputNorm;
    Tensor residual;
};

struct LayerTrace {
    /// The residual stream entering the layer. Always kept (one row per token), so a layer
    /// whose intermediates were not captured can be recomputed alone
    /// (TransformerModel::recomputeLayer).
    Tensor input;
    /// Every intermediate of the layer was kept (CapturePolicy).
    bool complete = false;
    std::vector<AttentionBlockTrace> attention; ///< self; or masked_self then cross
    FeedForwardBlockTrace feedForward;
};

/// An encoder's or a decoder's activations, `[batch, token, feature]` each.
struct StackTrace {
    Tensor embedding; ///< token embeddings (× √d_model when the model scales them)
    /// The positional encoding added to them; zeros when nothing is added (positions none, or
    /// rotary: then every self-attention block turns q and k by position instead).
    Tensor positional;
    Tensor tokenType; ///< BERT's segment embeddings added too; empty otherwise
    Tensor input; ///< their sum (normalised for BERT): what layer 0 reads
    std::vector<LayerTrace> layers;
    Tensor finalNorm; ///< empty unless the model has a final norm
    Tensor output; ///< what the stack hands on (always kept; not a dump name of its own)
};

/// Calls `visit(name, tensor)`; the names are those of ModelTrace::forEachTensor.
using TensorVisitor = std::function<void(const std::string& name, const Tensor& tensor)>;

/// What a forward pass keeps. A 12-layer model at 1024 tokens holds several GB of
/// intermediates; the views need all 144 attention maps but only one layer in full at a time.
struct CapturePolicy {
    /// What every attention block keeps of its thirteen steps.
    AttentionKeep attention = AttentionKeep::all();
    /// Norms, residuals and feed-forward intermediates of every layer.
    bool layerTensors = true;
    /// This layer (of each stack) keeps everything, whatever the fields above say.
    std::optional<int> fullLayer;
    /// All positions' logits; false keeps only the last position's (what decoding needs).
    bool allLogits = true;
    /// Sees every tensor of every layer as soon as it is computed, whether kept or not (a dump
    /// streams them to disk this way). Setting it computes each layer in full before trimming.
    TensorVisitor observer;
    /// Called after every layer with (layers done, all layers), the encoder's counted first: a
    /// progress bar's feed, and where a caller cancels a long run by throwing.
    std::function<void(int done, int total)> progress;

    static CapturePolicy everything() { return {}; }
    /// The attention weights of every block, the residual stream, and optionally one layer in full.
    static CapturePolicy attentionWeights(std::optional<int> fullLayer = std::nullopt);
};

/// Every activation of one forward pass of a Transformer model that the capture policy kept.
///
/// Dump names (`attnviz-cli trace`, docs/model-format.md): `encoder.embedding`,
/// `encoder.positional`, `encoder.token_type`, `encoder.input`, `encoder.final_norm`, the same
/// under `decoder.`, `decoder.logits`, and per layer `layer{L}.{block}.{step}`: the thirteen
/// attention steps of AttentionTrace plus `norm`, `output_norm` (sandwich norms only) and
/// `residual` for the attention blocks (self, masked_self, cross), and `gate_pre` (gated blocks
/// only), `hidden_pre`, `hidden`, `output`, `norm`, `output_norm`, `residual` for the
/// feed-forward blocks (enc_ffn, dec_ffn). An encoder-decoder model's
/// encoder layer L and decoder layer L share the prefix `layer{L}`; their block names tell them
/// apart. `norm` is whichever norm the model has (LayerNorm or RMSNorm).
struct ModelTrace {
    std::vector<int> sourceIds; ///< the encoder's input
    std::vector<int> targetIds; ///< the decoder's input
    std::optional<StackTrace> encoder;
    std::optional<StackTrace> decoder;
    Tensor logits; ///< [batch, token, vocab] (token = 1 when only the last position was kept)
    /// A Vision Transformer's picture as the model read it, [channels, height, width] (dump name
    /// `pixels`), and its classifier's output, [1, classes] (dump name `logits`).
    Tensor pixels;
    Tensor classLogits;

    /// Calls `visit(name, tensor)` for every kept tensor in computation order.
    void forEachTensor(const TensorVisitor& visit) const;
    /// The attention block `block` of layer `layer`, or nullptr when the model has none there.
    const AttentionBlockTrace* attentionBlock(int layer, Block block) const;
    /// The attention blocks present at a layer, in computation order.
    std::vector<Block> attentionBlocks(int layer) const;
    int layerCount() const;
    /// The stack a block belongs to.
    const StackTrace* stackOf(Block block) const;
    /// The token ids along the query and the key axis of an attention block.
    const std::vector<int>& queryIds(Block block) const;
    const std::vector<int>& keyIds(Block block) const;
};

/// Visits the tensors of one layer of a stack under their dump names (`layer{L}.{block}.{step}`).
void forEachLayerTensor(const LayerTrace& layer, int index, const TensorVisitor& visit);

} // namespace attnviz::engine
