#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// A picture as 8-bit RGB, row by row, as Pillow's `convert("RGB")` makes it of what it opened:
/// grey replicated, alpha dropped (not composited), a palette looked up; 16-bit samples keep
/// their high byte, except 16-bit grey, which Pillow opens as 32-bit integers and clips at 255.
struct DecodedImage {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb; ///< height × width × 3

    std::uint8_t at(int y, int x, int channel) const
    {
        return rgb[(static_cast<std::size_t>(y) * width + x) * 3 + channel];
    }
};

/// The most pixels a picture may claim (2^26, 8192 × 8192), checked from its header before
/// anything is decoded: a small file can claim a picture of gigabytes.
inline constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 26;

/// Reads a PNG or JPEG file (io::readFile's checks: no directory, FIFO or device). Throws
/// FileError when the file cannot be read and FormatError, in one sentence naming the file, for
/// anything else: not a PNG or JPEG, corrupt or truncated, more than kMaxImagePixels, an
/// animated PNG, a CMYK JPEG.
DecodedImage readImage(const std::string& path);
/// The same from bytes; `name` is what messages call them.
DecodedImage decodeImage(std::string_view bytes, const std::string& name);

} // namespace attnviz::io
