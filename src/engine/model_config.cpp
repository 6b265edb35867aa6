#include "engine/model_config.h"

#include "engine/input_error.h"

#include <algorithm>

namespace attnviz::engine {

int ModelConfig::layerCount() const
{
    return std::max(hasEncoder() ? encoderLayers : 0, hasDecoder() ? decoderLayers : 0);
}

void checkConfig(const ModelConfig& c)
{
    const auto positive = [](int value, const char* field) {
        if (value <= 0)
            throw InputError(std::string("config.json: ") + field + " must be a positive integer, not " +
                             std::to_string(value) + ".");
    };
    positive(c.vocabSize, "vocab_size");
    positive(c.modelWidth, "d_model");
    positive(c.numHeads, "num_heads");
    positive(c.feedForwardWidth, "d_ff");
    positive(c.maxLength, "max_length");
    if (c.modelWidth % c.numHeads != 0)
        throw InputError("config.json: d_model " + std::to_string(c.modelWidth) + " cannot be split into " +
                         std::to_string(c.numHeads) + " heads of equal width (d_model must be a multiple of num_heads).");
    if (c.hasEncoder() && c.encoderLayers <= 0)
        throw InputError(std::string("config.json: a ") + architectureName(c.architecture) +
                         " model needs encoder_layers ≥ 1.");
    if (c.hasDecoder() && c.decoderLayers <= 0)
        throw InputError(std::string("config.json: a ") + architectureName(c.architecture) +
                         " model needs decoder_layers ≥ 1.");
    if (!c.hasEncoder() && c.encoderLayers != 0)
        throw InputError("config.json: a decoder-only model has encoder_layers 0, not " + std::to_string(c.encoderLayers) + ".");
    if (!c.hasDecoder() && c.decoderLayers != 0)
        throw InputError("config.json: an encoder-only model has decoder_layers 0, not " + std::to_string(c.decoderLayers) + ".");
    if (!(c.layerNormEps > 0))
        throw InputError("config.json: layer_norm_eps must be positive.");
    if (c.architecture == Architecture::EncoderDecoder && !c.bosToken)
        throw InputError("config.json: an encoder-decoder model needs bos_token, the token its decoder starts from.");
}

const char* architectureName(Architecture a)
{
    switch (a) {
    case Architecture::EncoderDecoder: return "encoder-decoder";
    case Architecture::DecoderOnly: return "decoder-only";
    case Architecture::EncoderOnly: return "encoder-only";
    }
    return "";
}

const char* activationName(Activation a)
{
    switch (a) {
    case Activation::Relu: return "relu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_tanh";
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
    case PositionalKind::Sinusoidal: return "sinusoidal";
    case PositionalKind::Learned: return "learned";
    case PositionalKind::None: return "none";
    }
    return "";
}

} // namespace attnviz::engine
