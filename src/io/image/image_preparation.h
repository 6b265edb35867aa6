#pragma once

#include "engine/model_config.h"
#include "engine/tensor.h"
#include "io/image/decoded_image.h"
#include "io/image/pillow_resample.h"

#include <array>
#include <filesystem>
#include <optional>

namespace attnviz::io {

/// How a Vision Transformer's pictures are prepared, as its folder's preprocessor_config.json
/// says (Hugging Face's ViTImageProcessor and DeiTImageProcessor): resized as Pillow resizes,
/// centre-cropped, multiplied by the rescale factor, normalised by the mean and deviation of each
/// channel.
struct ImagePreparation {
    bool resize = true;
    int height = 224; ///< `size`: an integer, or {height, width}
    int width = 224;
    Resample resample = Resample::Bilinear;
    bool centreCrop = false;
    int cropHeight = 224; ///< `crop_size`
    int cropWidth = 224;
    bool rescale = true;
    double rescaleFactor = 1.0 / 255.0;
    bool normalise = true;
    std::array<float, 3> mean{0.5f, 0.5f, 0.5f};
    std::array<float, 3> deviation{0.5f, 0.5f, 0.5f};
};

/// The preparation of the model in `folder`: its preprocessor_config.json, or without one
/// ViTImageProcessor's defaults at the model's own picture size. Throws FormatError naming the
/// field for a value AttnViz does not compute (another resample, a `shortest_edge` size, means
/// of another channel count).
ImagePreparation readImagePreparation(const std::filesystem::path& folder,
                                      const engine::ImageInput& input);

/// The picture resized and cropped to the model's size, still 8-bit RGB: what the app draws
/// attention over. A picture already of the model's size is returned as it is. Throws FormatError
/// as prepareImage does; `check` is asked first for the bytes resizing takes (a `size` of 16384
/// makes a 768 MiB picture on the way to a crop of 224).
DecodedImage pictureAsModelSeesIt(const DecodedImage& image, const ImagePreparation& preparation,
                                  const engine::ImageInput& input,
                                  const PictureMemoryCheck& check = {});

/// A picture of the model's size rescaled and normalised, [3, height, width] float32.
engine::Tensor normalisedPixels(const DecodedImage& picture, const ImagePreparation& preparation);

/// The prepared picture, [3, height, width] float32 as the model reads it (the trace's
/// `pixels`). A picture already of the model's size is only rescaled and normalised. Throws
/// FormatError when the result is not the model's size (a crop larger than the resized picture,
/// a preparation for another model), or the model does not read 3 channels.
engine::Tensor prepareImage(const DecodedImage& image, const ImagePreparation& preparation,
                            const engine::ImageInput& input);

} // namespace attnviz::io
