#pragma once

#include <optional>
#include <string>

namespace attnviz::engine {

enum class Architecture { EncoderDecoder, DecoderOnly, EncoderOnly };
enum class Activation { Relu, Gelu, GeluTanh };
/// Pre-norm: x + f(LayerNorm(x)). Post-norm (the original Transformer): LayerNorm(x + f(x)).
enum class NormPosition { Pre, Post };
enum class PositionalKind { Sinusoidal, Learned, None };

/// The shape and options of a Transformer model, whatever checkpoint layout it was read from
/// (AttnViz's own, Hugging Face GPT-2 or BERT; see io/checkpoint). Sizes are `int` because the
/// engine indexes with them; checkConfig bounds every one of them.
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
    Activation activation = Activation::Relu;
    NormPosition norm = NormPosition::Pre;
    bool finalNorm = false; ///< a LayerNorm after the last layer of each stack
    PositionalKind positional = PositionalKind::Sinusoidal;
    int maxLength = 0;
    bool scaleEmbedding = false; ///< multiply token embeddings by √d_model (Vaswani et al. 3.4)
    int tokenTypes = 0; ///< BERT's segment embeddings (type_vocab_size); 0 = none
    bool embeddingNorm = false; ///< BERT: a LayerNorm over the summed embeddings
    bool tiedOutput = false; ///< the logits reuse the token embedding matrix (GPT-2)
    float layerNormEps = 1e-5f;
    bool bias = true;
    std::optional<int> bosTokenId; ///< the token an encoder-decoder's decoder starts from
    std::optional<int> eosTokenId; ///< greedy decoding stops after choosing it
    /// A sentence the app opens the model with.
    std::string exampleText;
    std::string exampleTarget;

    bool hasEncoder() const { return architecture != Architecture::DecoderOnly; }
    bool hasDecoder() const { return architecture != Architecture::EncoderOnly; }
    int layerCount() const;
    int headSize() const { return numHeads ? modelWidth / numHeads : 0; }
};

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
};

/// Throws InputError with one sentence when the configuration cannot describe a model (a width
/// not divisible by the heads, a decoder-only model with encoder layers, a size beyond
/// ConfigLimits, an epsilon that is not a small positive float, ...). `file` names where the
/// fields came from in the message ("config.json").
void checkConfig(const ModelConfig& config, const std::string& file = "config.json");

const char* architectureName(Architecture a);
const char* activationName(Activation a);
const char* normName(NormPosition n);
const char* positionalName(PositionalKind p);

} // namespace attnviz::engine
