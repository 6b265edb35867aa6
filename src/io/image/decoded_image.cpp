#include "io/image/decoded_image.h"

#include "io/image/image_decoders.h"
#include "io/input_file.h"
#include "io/safetensors.h"

namespace attnviz::io {

DecodedImage decodeImage(std::string_view bytes, const std::string& name,
                         const PictureMemoryCheck& check)
{
    if (bytes.starts_with("\x89PNG\r\n\x1a\n"))
        return image_decoders::decodePng(bytes, name, check);
    if (bytes.starts_with("\xFF\xD8\xFF"))
        return image_decoders::decodeJpeg(bytes, name, check);
    throw FormatError(printable(name) + " is not a PNG or JPEG picture.");
}

DecodedImage readImage(const std::string& path, const PictureMemoryCheck& check)
{
    return decodeImage(readFile(path), path, check);
}

namespace image_decoders {

void checkPixelCount(std::int64_t width, std::int64_t height, const std::string& name)
{
    if (width <= 0 || height <= 0)
        throw FormatError(printable(name) + " claims a picture of " + std::to_string(width) +
                          " × " + std::to_string(height) + " pixels; it holds none.");
    // Each side first: two sides of 2^32 − 1 overflow the product.
    if (width > kMaxImagePixels || height > kMaxImagePixels || width * height > kMaxImagePixels)
        throw FormatError(printable(name) + " claims " + std::to_string(width) + " × " +
                          std::to_string(height) + " pixels; AttnViz opens at most " +
                          std::to_string(kMaxImagePixels) + " (8192 × 8192).");
}

} // namespace image_decoders
} // namespace attnviz::io
