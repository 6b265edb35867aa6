#pragma once

#include "io/image/decoded_image.h"

namespace attnviz::io::image_decoders {

/// Each throws FormatError with `name` in its one sentence; the checks of decodeImage (size,
/// animation) are theirs.
DecodedImage decodePng(std::string_view bytes, const std::string& name,
                       const PictureMemoryCheck& check);
DecodedImage decodeJpeg(std::string_view bytes, const std::string& name,
                        const PictureMemoryCheck& check);

/// FormatError when a picture of width × height is empty or larger than kMaxImagePixels.
void checkPixelCount(std::int64_t width, std::int64_t height, const std::string& name);

} // namespace attnviz::io::image_decoders
