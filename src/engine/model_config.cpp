#include "engine/model_config.h"

#include "engine/input_error.h"

#include <algorithm>
#include <cmath>

namespace attnviz::engine {

int ModelConfig::layerCount() const
{
    return std::max(hasEncoder() ? encoderLayers : 0, hasDecoder() ? decoderLayers : 0);
}

void checkConfig(const ModelConfig& c, const std::string& file)
{
    const auto fail = [&](const std::string& sentence) {
        throw InputError(file + ": " + sentence);
    };
    const auto inRange = [&](int value, const char* field, int low, int high) {
        if (value < low || value > high)
            fail(std::string(field) + " is " + std::to_string(value) +
                 "; expected an integer from " + std::to_string(low) + " to " +
                 std::to_string(high) + ".");
    };
    inRange(c.vocabSize, "vocab_size", 1, ConfigLimits::kVocabulary);
    inRange(c.modelWidth, "d_model", 1, ConfigLimits::kWidth);
    inRange(c.numHeads, "num_heads", 1, ConfigLimits::kHeads);
    inRange(c.feedForwardWidth, "d_ff", 1, ConfigLimits::kFeedForward);
    inRange(c.maxLength, "max_length", 1, ConfigLimits::kLength);
    inRange(c.encoderLayers, "encoder_layers", 0, ConfigLimits::kLayers);
    inRange(c.decoderLayers, "decoder_layers", 0, ConfigLimits::kLayers);
    inRange(c.tokenTypes, "type_vocab_size", 0, ConfigLimits::kTokenTypes);
    if (c.modelWidth % c.numHeads != 0)
        fail("d_model " + std::to_string(c.modelWidth) + " cannot be split into " +
             std::to_string(c.numHeads) +
             " heads of equal width (d_model must be a multiple of num_heads).");
    if (c.hasEncoder() && c.encoderLayers <= 0)
        fail(std::string("a ") + architectureName(c.architecture) +
             " model needs encoder_layers ≥ 1.");
    if (c.hasDecoder() && c.decoderLayers <= 0)
        fail(std::string("a ") + architectureName(c.architecture) +
             " model needs decoder_layers ≥ 1.");
    if (!c.hasEncoder() && c.encoderLayers != 0)
        fail("a decoder-only model has encoder_layers 0, not " + std::to_string(c.encoderLayers) +
             ".");
    if (!c.hasDecoder() && c.decoderLayers != 0)
        fail("an encoder-only model has decoder_layers 0, not " + std::to_string(c.decoderLayers) +
             ".");
    // As a float: 1e39 would become +Inf and LayerNorm would output only its bias.
    if (!std::isfinite(c.layerNormEps) || !(c.layerNormEps > 0) || c.layerNormEps > 1)
        fail(
            "layer_norm_eps must be a positive number no larger than 1 (typically 1e-5 or 1e-12).");
    if (c.architecture == Architecture::EncoderDecoder && !c.bosTokenId)
        fail("an encoder-decoder model needs bos_token, the token its decoder starts from.");
    for (const auto& [id, field] :
         {std::pair{c.bosTokenId, "bos_token"}, std::pair{c.eosTokenId, "eos_token"}})
        if (id && (*id < 0 || *id >= c.vocabSize))
            fail(std::string(field) + " has id " + std::to_string(*id) +
                 ", outside the vocabulary of " + std::to_string(c.vocabSize) + ".");
}

const char* architectureName(Architecture a)
{
    switch (a) {
    case Architecture::EncoderDecoder:
        return "encoder-decoder";
    case Architecture::DecoderOnly:
        return "decoder-only";
    case Architecture::EncoderOnly:
        return "encoder-only";
    }
    return "";
}

const char* activationName(Activation a)
{
    switch (a) {
    case Activation::Relu:
        return "relu";
    case Activation::Gelu:
        return "gelu";
    case Activation::GeluTanh:
        return "gelu_tanh";
    }
    return "";
}

const char* normName(NormPosition n)
{
    return n == NormPosition::Pre ? "pre" : "post";
}

const char* positionalName(PositionalKind p)
{
    switch (p) {
    case PositionalKind::Sinusoidal:
        return "sinusoidal";
    case PositionalKind::Learned:
        return "learned";
    case PositionalKind::None:
        return "none";
    }
    return "";
}

} // namespace attnviz::engine
