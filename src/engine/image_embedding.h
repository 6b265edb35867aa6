#pragma once

#include "engine/model_config.h"
#include "engine/model_weights.h"
#include "engine/tensor.h"

namespace attnviz::engine {

/// Throws InputError with one sentence unless `pixels` is [channels, height, width] of the
/// model's ImageInput and every value is finite.
void checkPixels(const Tensor& pixels, const ModelConfig& config);

/// Throws InputError unless a Vision Transformer's own weights have the shapes of its
/// configuration.
void checkImageWeights(const ImageWeights& weights, const ModelConfig& config);

/// The tokens a Vision Transformer reads, [1, tokens, D]: the CLS token, DeiT's distillation
/// token, then each patch of `pixels` [C, H, W] (row by row of the patch grid) flattened as
/// (channel, y, x) and projected, x Wᵀ + b: the convolution with kernel = stride = patch size.
Tensor embedImage(const Tensor& pixels, const ImageWeights& weights, const ModelConfig& config);

/// The classifier's logits [1, classes] over the last stack's output [1, tokens, D]: the CLS
/// token's, or DeiT's two heads averaged (its class head on CLS, its distillation head on the
/// distillation token), as Hugging Face's `logits`.
Tensor classifyImage(const Tensor& output, const ImageWeights& weights, const ModelConfig& config);

} // namespace attnviz::engine
