#pragma once

// Pictures built byte by byte for the decoders' tests: every PNG layout the decoder must read
// (interlaced too) and the bombs it must not be taken in by. libpng and libjpeg write only what
// they consider valid, so the hostile parts are assembled here.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::test {

/// A PNG chunk: length, type, data and CRC.
std::string pngChunk(std::string_view type, std::string_view data);

/// A zlib stream of `raw` followed by `zeros` zero bytes, built in the time and memory of its
/// compressed size (16 GiB of zeros compress to 17 MB): the compressed form of a block of zeros
/// after a full flush is always the same, so it is repeated.
std::string zlibWithZeros(std::string_view raw, std::uint64_t zeros);

/// An 8-bit PNG: its samples (height × width × channels of the colour type), written with filter
/// 0, Adam7-interlaced or not; chunks placed between IHDR and IDAT; and zero bytes inflated after
/// the last row in the same stream (data the picture does not need).
struct PngPicture {
    int width = 0;
    int height = 0;
    int colourType = 2; ///< 0 grey, 2 RGB, 4 grey and alpha, 6 RGBA
    int bitDepth = 8; ///< 8 or 16; 16-bit samples are the same byte twice
    bool interlaced = false;
    std::vector<std::uint8_t> samples;
    std::vector<std::string> chunksBeforeData;
    std::uint64_t surplusZeros = 0;
};
std::string pngFile(const PngPicture& picture);

/// A zTXt chunk whose text inflates to `inflatedBytes` zero bytes.
std::string zTxtChunk(std::uint64_t inflatedBytes);

/// A progressive grey JPEG of width × height (a gradient) in `scans` scans: a DC scan, an AC scan
/// and DC refinement scans, the last of them repeated (libjpeg warns of a bogus progression and
/// decodes it).
std::string progressiveJpeg(int width, int height, int scans);

} // namespace attnviz::test
