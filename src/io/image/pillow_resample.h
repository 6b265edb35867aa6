#pragma once

#include "io/image/decoded_image.h"

#include <optional>

namespace attnviz::io {

/// Pillow's resampling filters that Hugging Face's image processors name by number.
enum class Resample { Bilinear = 2, Bicubic = 3 };

/// The resample of a preprocessor_config.json's number (2, 3), if AttnViz computes it.
std::optional<Resample> resampleFromNumber(long long number);

/// `image` resized to width × height exactly as Pillow's Image.resize does it for an 8-bit RGB
/// picture (Resample.c): a separable filter whose support widens by the scale when shrinking, its
/// weights normalised and held in 22-bit fixed point, the horizontal pass first, each pass rounded
/// and clamped to 8 bits. The same size is returned unchanged.
DecodedImage resizeLikePillow(const DecodedImage& image, int width, int height, Resample resample);

} // namespace attnviz::io
