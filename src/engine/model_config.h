#pragma once

#include <optional>
#include <string>

namespace attnviz::engine {

enum class Architecture { EncoderDecoder, DecoderOnly, EncoderOnly };
enum class Activation { Relu, Gelu, GeluTanh };
/// Pre-norm: x + f(LayerNorm(x)). Post-norm (the original Transformer): LayerNorm(x + f(x)).
enum class NormPosition { Pre, Post };
enum class PositionalKind { Sinusoidal, Learned, None };
/// How text becomes tokens: one token a UTF-8 character, or one a whitespace-separated word.
enum class TokenizerKind { Character, Word };

/// The shape and options of a Transformer model, as `config.json` states them
/// (docs/model-format.md).
struct ModelConfig {
    std::string name;
    std::string description;
    Architecture architecture = Architecture::EncoderDecoder;
    int vocabSize = 0;
    int modelWidth = 0;   ///< d_model
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
    float layerNormEps = 1e-5f;
    bool bias = true;
    TokenizerKind tokenizer = TokenizerKind::Character;
    std::optional<std::string> bosToken;
    std::optional<std::string> eosToken;
    /// A sentence the app opens the model with.
    std::string exampleText;
    std::string exampleTarget;

    bool hasEncoder() const { return architecture != Architecture::DecoderOnly; }
    bool hasDecoder() const { return architecture != Architecture::EncoderOnly; }
    int layerCount() const;
    int headSize() const { return numHeads ? modelWidth / numHeads : 0; }
};

/// Throws InputError with one sentence when the configuration cannot describe a model
/// (a width not divisible by the heads, a decoder-only model with encoder layers, ...).
void checkConfig(const ModelConfig& config);

const char* architectureName(Architecture a);
const char* activationName(Activation a);
const char* normName(NormPosition n);
const char* positionalName(PositionalKind p);

} // namespace attnviz::engine
