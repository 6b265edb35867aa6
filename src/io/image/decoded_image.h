#pragma once

#include <cstdint>
#include <functional>
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

/// The most scans a progressive JPEG may have: each one goes over every block of the picture, and
/// a file of a few kilobytes can hold thousands of empty ones. Encoders write about ten.
inline constexpr int kMaxJpegScans = 100;

/// Asked once a picture's header is read, before its pixels are allocated: the bytes decoding
/// (or preparing) it takes at its peak, and what for ("Decoding the 8192 × 8192 picture x.png").
/// It throws to refuse, so that a caller can hold pictures to its memory budget (--max-memory).
using PictureMemoryCheck = std::function<void(std::uint64_t bytes, const std::string& what)>;

/// Reads a PNG or JPEG file (io::readFile's checks: no directory, FIFO or device). Throws
/// FileError when the file cannot be read and FormatError, in one sentence naming the file, for
/// anything else: not a PNG or JPEG, corrupt or truncated, more than kMaxImagePixels, an
/// animated PNG, a CMYK JPEG, a JPEG of more than kMaxJpegScans scans or of fewer bytes than its
/// blocks need. The work is bounded by the picture: a PNG is read to its last row (image data
/// after it is not inflated) and its ancillary chunks are skipped unread. EXIF orientation is not
/// applied, as neither Pillow's Image.open nor Hugging Face's image processors apply it.
DecodedImage readImage(const std::string& path, const PictureMemoryCheck& check = {});
/// The same from bytes; `name` is what messages call them.
DecodedImage decodeImage(std::string_view bytes, const std::string& name,
                         const PictureMemoryCheck& check = {});

} // namespace attnviz::io
