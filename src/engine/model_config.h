#pragma once

#include "engine/attention_description.h"
#include "engine/layer_config.h"

#include <optional>
#include <string>
#include <vector>

namespace attnviz::engine {

enum class Architecture { EncoderDecoder, DecoderOnly, EncoderOnly };
/// Pre-norm: x + f(LayerNorm(x)). Post-norm (the original Transformer): LayerNorm(x + f(x)).
/// The model-wide placement the standard layers take (LayerConfig says it per sublayer).
enum class NormPosition { Pre, Post };
/// Rotary: nothing is added to the embeddings; every self-attention module turns its queries and
/// keys by position instead (AttentionDescription::rotary).
enum class PositionalKind { Sinusoidal, Learned, None, Rotary };

/// A Vision Transformer's input (Dosovitskiy et al. 2021): a picture of `channels` × height ×
/// width cut into patches of patchSize × patchSize, each projected into a token; a learned CLS
/// token (and DeiT's distillation token) goes first. The model is encoder-only, its learned
/// positions count every token, and its vocabulary is those tokens (id i names token i, for the
/// views), so vocab_size = max_length = tokens().
struct ImageInput {
    int height = 0;
    int width = 0;
    int patchSize = 0;
    int channels = 3;
    bool distillationToken = false; ///< DeiT: a second learned token, after CLS
    /// Classifier outputs over the first token (0: none, a ViTModel); with teacherHead DeiT's
    /// two heads, on the CLS and the distillation token, averaged.
    int classes = 0;
    bool teacherHead = false;
    std::vector<std::string> labels; ///< id2label, one per class; empty: "class i"

    int patchRows() const { return patchSize ? height / patchSize : 0; }
    int patchColumns() const { return patchSize ? width / patchSize : 0; }
    int patches() const { return patchRows() * patchColumns(); }
    int extraTokens() const { return distillationToken ? 2 : 1; }
    int tokens() const { return patches() + extraTokens(); }
};

/// The shape and options of a Transformer model, whatever checkpoint layout it was read from
/// (AttnViz's own, Hugging Face GPT-2, BERT, Llama, Mistral, Qwen2; see io/checkpoint). Sizes are
/// `int` because the engine indexes with them; checkConfig bounds every one of them.
struct ModelConfig {
    std::string name;
    std::string description;
    Architecture architecture = Architecture::EncoderDecoder;
    int vocabSize = 0;
    int modelWidth = 0; ///< d_model
    int numHeads = 0;
    int feedForwardWidth = 0; ///< d_ff
    int encoderLayers = 0;
    int decoderLayers = 0;
    /// H_kv, the K/V heads of every attention module (grouped-query attention); 0 = numHeads.
    int numKeyValueHeads = 0;
    /// The size of one head; 0 = d_model / num_heads. Gemma's differs: then w_q is
    /// [H·head_dim, D] and w_o [D, H·head_dim].
    int headDim = 0;
    Activation activation = Activation::Relu;
    FeedForwardKind feedForwardKind = FeedForwardKind::Plain;
    NormPosition norm = NormPosition::Pre;
    NormKind normKind = NormKind::LayerNorm; ///< the sublayers', the embedding and the final norm
    bool finalNorm = false; ///< a norm after the last layer of each stack
    PositionalKind positional = PositionalKind::Sinusoidal;
    double ropeTheta = 10000.0; ///< rotary positions' base θ (rope_theta)
    /// How many features of each head rotary positions turn; 0 = the whole head. GPT-NeoX's
    /// rotary_pct and Phi's partial_rotary_factor turn fewer.
    int rotatedSize = 0;
    /// Llama 3's or linear stretching of rotary positions (rope_scaling); none when unset.
    std::optional<RopeScaling> ropeScaling;
    /// Mistral's sliding window: a decoder's causal self-attention sees the last W keys only.
    std::optional<int> slidingWindow;
    /// Which decoder layers use the window (Qwen2 windows only some); empty = every layer.
    std::vector<bool> slidingWindowLayers;
    int maxLength = 0;
    bool scaleEmbedding = false; ///< multiply token embeddings by √d_model (Vaswani et al. 3.4)
    int tokenTypes = 0; ///< BERT's segment embeddings (type_vocab_size); 0 = none
    bool embeddingNorm = false; ///< BERT: a norm over the summed embeddings
    bool tiedOutput = false; ///< the logits reuse the token embedding matrix (GPT-2)
    float layerNormEps = 1e-5f; ///< the epsilon of every norm, whatever its kind
    /// Biases on the projections of attention and of the feed-forward block. The three fields
    /// below override it where a family differs (Qwen2: q, k and v have one, o_proj and the MLP
    /// none); unset, they follow it. The logits' bias is the weights' business (GPT-2 has none).
    bool bias = true;
    std::optional<bool> attentionBias; ///< on q_proj, k_proj and v_proj
    std::optional<bool> outputProjectionBias; ///< on o_proj
    std::optional<bool> mlpBias; ///< on the feed-forward block's projections
    std::optional<int> bosTokenId; ///< the token an encoder-decoder's decoder starts from
    std::optional<int> eosTokenId; ///< greedy decoding stops after choosing it
    /// Set for a Vision Transformer, which reads a picture instead of token ids.
    std::optional<ImageInput> image;
    /// Each layer as it computes, when a layout says so layer by layer (a window every other
    /// layer, sandwich norms, another rotary base for the global layers); empty: every layer as
    /// the fields above describe it (standardLayer). Read through layerConfig.
    std::vector<LayerConfig> encoderLayerConfigs;
    std::vector<LayerConfig> decoderLayerConfigs;
    /// A sentence the app opens the model with.
    std::string exampleText;
    std::string exampleTarget;

    bool hasEncoder() const { return architecture != Architecture::DecoderOnly; }
    bool hasDecoder() const { return architecture != Architecture::EncoderOnly; }
    int layerCount() const;
    int headSize() const; ///< head_dim when set, else d_model / num_heads
    int keyValueHeads() const { return numKeyValueHeads ? numKeyValueHeads : numHeads; }
    /// Whether decoder layer `layer`'s self-attention has the sliding window.
    bool windowed(int layer) const;
    bool hasAttentionBias() const { return attentionBias.value_or(bias); }
    bool hasOutputProjectionBias() const { return outputProjectionBias.value_or(bias); }
    bool hasMlpBias() const { return mlpBias.value_or(bias); }
};

/// Layer `layer` of the encoder (`decoder` false) or the decoder as it computes: the layout's own
/// (ModelConfig::encoderLayerConfigs, decoderLayerConfigs) or the standard one the model-wide
/// fields describe. What the model builds its modules from, checks its weights against and runs.
LayerConfig layerConfig(const ModelConfig& config, bool decoder, int layer);
/// The layer the model-wide fields describe: the decoder's self-attention causal, rotary
/// positions on self-attention, the window on the layers it names, the same norms and
/// feed-forward block everywhere.
LayerConfig standardLayer(const ModelConfig& config, bool decoder, int layer);

/// The sublayers of one layer of the encoder (`decoder` false) or the decoder, in order.
std::vector<Block> layerBlocks(const ModelConfig& config, bool decoder);
/// The attention blocks numbered `layer` (the encoder's layer and the decoder's share a number):
/// what an ablation "layer:head" can name. Empty past the last layer.
std::vector<Block> attentionBlocksOfLayer(const ModelConfig& config, int layer);

/// The attention module of block `block` in layer `layer` of a model with this configuration
/// (its layer's layerConfig): its query and K/V heads, head sizes, treatments and mask.
AttentionDescription attentionDescription(const ModelConfig& config, int layer, Block block);

/// The largest sizes checkConfig accepts. Far above any model a desktop can run, yet small
/// enough that counting tensors or multiplying sizes can never overflow or run away.
struct ConfigLimits {
    static constexpr int kLayers = 1024;
    static constexpr int kHeads = 1024;
    static constexpr int kWidth = 65536;
    static constexpr int kFeedForward = 262144;
    static constexpr int kVocabulary = 1 << 24;
    static constexpr int kLength = 1 << 20;
    static constexpr int kTokenTypes = 1024;
    static constexpr int kImageSide = 16384;
    static constexpr int kChannels = 16;
    static constexpr int kClasses = 1 << 20;
};

/// Throws InputError with one sentence when the configuration cannot describe a model (a width
/// not divisible by the heads, a decoder-only model with encoder layers, a size beyond
/// ConfigLimits, an epsilon that is not a small positive float, K/V heads that do not divide the
/// heads, an odd number of rotated features, a window list of the wrong length, ...). `file`
/// names where the fields came from in the message ("config.json").
void checkConfig(const ModelConfig& config, const std::string& file = "config.json");

const char* architectureName(Architecture a);
/// "an encoder-decoder", "a decoder-only": the name with its article, for sentences.
std::string architectureWithArticle(Architecture a);
const char* activationName(Activation a);
const char* normName(NormPosition n);
const char* positionalName(PositionalKind p);
const char* feedForwardKindName(FeedForwardKind f); ///< "plain", "gated"

} // namespace attnviz::engine
