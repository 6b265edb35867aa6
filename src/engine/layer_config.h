#pragma once

#include "engine/attention_description.h"
#include "engine/block.h"

#include <vector>

namespace attnviz::engine {

enum class Activation { Relu, Gelu, GeluTanh, Silu };
/// What a norm computes (engine/layer_norm.h): LayerNorm with its bias (GPT-2, BERT), LayerNorm
/// with a gain only, RMSNorm (Llama, Mistral, Qwen2), which neither centres nor shifts, or
/// Gemma's RMSNorm, whose gain is (1 + w) so that a zero weight leaves the row as normalised.
enum class NormKind { LayerNorm, LayerNormWithoutBias, RmsNorm, RmsNormUnitOffset };
/// The feed-forward block: plain `W2 act(W1 x)`, or gated `W2 (act(W_gate x) ⊙ W1 x)` (Shazeer
/// 2020; Llama's SwiGLU with SiLU, Gemma's GeGLU with GELU).
enum class FeedForwardKind { Plain, Gated };

/// Where the norms of one sublayer f sit around its residual connection. Pre-norm (GPT-2,
/// Llama): x + f(N(x)). Post-norm (the 2017 Transformer, BERT): N(x + f(x)). Gemma 2 and 3's
/// "sandwich": x + N₂(f(N₁(x))), a second norm on the sublayer's output before it joins the
/// stream. Any combination is a layer's own choice.
struct SublayerNorms {
    bool beforeSublayer = true; ///< N(x) is what the sublayer reads
    bool afterSublayer = false; ///< the sublayer's output is normalised before the add
    bool afterResidual = false; ///< x + f(…) is normalised: the block's output
    bool operator==(const SublayerNorms&) const = default;
};

/// One attention block of a layer: its module and the norms around it.
struct AttentionBlockConfig {
    Block block = Block::Self;
    AttentionDescription description;
    SublayerNorms norms;
    bool operator==(const AttentionBlockConfig&) const = default;
};

/// One layer as it computes (gemma.cpp's LayerConfig): every attention block's description —
/// heads, K/V heads, head sizes, positions and their base, window or whole text, QK-norm, scale,
/// cap, sinks — the norms around each sublayer and their kind, and the feed-forward block. The
/// model's forward pass reads only this, so a family whose layers differ (a window every other
/// layer, a sandwich of norms, another rotary base for the global layers) is data a checkpoint
/// layout fills, not code.
struct LayerConfig {
    std::vector<AttentionBlockConfig> attention; ///< self; or masked_self then cross
    SublayerNorms feedForwardNorms;
    NormKind normKind = NormKind::LayerNorm; ///< every norm of the layer
    FeedForwardKind feedForward = FeedForwardKind::Plain;
    Activation activation = Activation::Relu;
    int feedForwardWidth = 0; ///< d_ff
    bool operator==(const LayerConfig&) const = default;

    /// The attention block `block`, or null when the layer has none.
    const AttentionBlockConfig* attentionOf(Block block) const;
};

const char* normKindName(NormKind n); ///< "layernorm", "layernorm_without_bias", "rmsnorm", …

} // namespace attnviz::engine
