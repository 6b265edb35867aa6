#include "support/picture_files.h"

#include <cstdio>
#include <jpeglib.h>
#include <zlib.h>

#include <array>
#include <stdexcept>

namespace attnviz::test {
namespace {

void appendBigEndian(std::string& out, std::uint32_t v)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        out += static_cast<char>((v >> shift) & 0xFF);
}

int channelsOf(int colourType)
{
    switch (colourType) {
    case 0:
        return 1;
    case 2:
        return 3;
    case 4:
        return 2;
    case 6:
        return 4;
    default:
        throw std::invalid_argument("pngFile: colour types 0, 2, 4 and 6 only");
    }
}

// The rows as filter-0 scanlines, in Adam7's seven passes when interlaced.
std::string scanlines(const PngPicture& p)
{
    struct Pass {
        int x0, y0, dx, dy;
    };
    const std::vector<Pass> passes = p.interlaced
        ? std::vector<Pass>{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                            {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
        : std::vector<Pass>{{0, 0, 1, 1}};
    const int channels = channelsOf(p.colourType);
    const int copies = p.bitDepth == 16 ? 2 : 1;
    std::string raw;
    for (const Pass& pass : passes) {
        if (pass.x0 >= p.width || pass.y0 >= p.height)
            continue;
        for (int y = pass.y0; y < p.height; y += pass.dy) {
            raw += '\0';
            for (int x = pass.x0; x < p.width; x += pass.dx)
                for (int c = 0; c < channels; ++c)
                    raw.append(
                        static_cast<std::size_t>(copies),
                        static_cast<char>(
                            p.samples[(static_cast<std::size_t>(y) * p.width + x) * channels + c]));
        }
    }
    return raw;
}

} // namespace

std::string pngChunk(std::string_view type, std::string_view data)
{
    std::string out;
    appendBigEndian(out, static_cast<std::uint32_t>(data.size()));
    out += type;
    out += data;
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(type.data()), 4);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    appendBigEndian(out, static_cast<std::uint32_t>(crc));
    return out;
}

std::string zlibWithZeros(std::string_view raw, std::uint64_t zeros)
{
    constexpr std::size_t kBlock = 1 << 20;
    z_stream z{};
    if (deflateInit(&z, 9) != Z_OK)
        throw std::runtime_error("zlibWithZeros: deflateInit failed");
    std::string out;
    const auto feed = [&](const char* data, std::size_t size, int flush) {
        std::array<char, 1 << 16> buffer{};
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
        z.avail_in = static_cast<uInt>(size);
        std::string produced;
        do {
            z.next_out = reinterpret_cast<Bytef*>(buffer.data());
            z.avail_out = buffer.size();
            deflate(&z, flush);
            produced.append(buffer.data(), buffer.size() - z.avail_out);
        } while (z.avail_out == 0 || z.avail_in > 0);
        return produced;
    };
    out += feed(raw.data(), raw.size(), Z_FULL_FLUSH);
    const std::string zeroBlock(kBlock, '\0');
    std::string repeated;
    std::uint64_t left = zeros;
    // The first block after the rows may differ from the rest; the second is the one repeated.
    for (int i = 0; i < 2 && left >= kBlock; ++i, left -= kBlock) {
        repeated = feed(zeroBlock.data(), kBlock, Z_FULL_FLUSH);
        out += repeated;
    }
    for (; left >= kBlock; left -= kBlock)
        out += repeated;
    out += feed(zeroBlock.data(), static_cast<std::size_t>(left), Z_FULL_FLUSH);
    deflateEnd(&z);
    // A final empty block, then the Adler-32 of everything: that of n zeros is (n mod 65521,
    // 1), combined with the rows'.
    out += std::string("\x03\x00", 2);
    const uLong rawSum =
        adler32(1, reinterpret_cast<const Bytef*>(raw.data()), static_cast<uInt>(raw.size()));
    const uLong zeroSum = ((zeros % 65521) << 16) | 1;
    appendBigEndian(out,
                    static_cast<std::uint32_t>(
                        adler32_combine64(rawSum, zeroSum, static_cast<z_off64_t>(zeros))));
    return out;
}

std::string pngFile(const PngPicture& p)
{
    std::string header;
    appendBigEndian(header, static_cast<std::uint32_t>(p.width));
    appendBigEndian(header, static_cast<std::uint32_t>(p.height));
    header += static_cast<char>(p.bitDepth);
    header += static_cast<char>(p.colourType);
    header += std::string("\0\0", 2);
    header += static_cast<char>(p.interlaced ? 1 : 0);
    std::string out = "\x89PNG\r\n\x1a\n";
    out += pngChunk("IHDR", header);
    for (const std::string& chunk : p.chunksBeforeData)
        out += chunk;
    // IDAT chunks of at most 1 MiB, as encoders split them.
    const std::string data = zlibWithZeros(scanlines(p), p.surplusZeros);
    for (std::size_t at = 0; at < data.size(); at += 1 << 20)
        out += pngChunk("IDAT", std::string_view(data).substr(at, 1 << 20));
    out += pngChunk("IEND", "");
    return out;
}

std::string zTxtChunk(std::uint64_t inflatedBytes)
{
    return pngChunk("zTXt", std::string("Comment\0\0", 9) + zlibWithZeros("", inflatedBytes));
}

std::string progressiveJpeg(int width, int height, int scans)
{
    jpeg_compress_struct c{};
    jpeg_error_mgr errors{};
    c.err = jpeg_std_error(&errors);
    jpeg_create_compress(&c);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &buffer, &size);
    c.image_width = static_cast<JDIMENSION>(width);
    c.image_height = static_cast<JDIMENSION>(height);
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    // DC at half precision, all of AC, then the DC's last bit.
    static const jpeg_scan_info script[3] = {{1, {0, 0, 0, 0}, 0, 0, 0, 1},
                                             {1, {0, 0, 0, 0}, 1, 63, 0, 0},
                                             {1, {0, 0, 0, 0}, 0, 0, 1, 0}};
    c.scan_info = script;
    c.num_scans = 3;
    jpeg_start_compress(&c, TRUE);
    std::vector<unsigned char> row(static_cast<std::size_t>(width));
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x)
            row[static_cast<std::size_t>(x)] = static_cast<unsigned char>((x + 2 * y) & 0xFF);
        JSAMPROW rows[1] = {row.data()};
        jpeg_write_scanlines(&c, rows, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::string file(reinterpret_cast<const char*>(buffer), size);
    std::free(buffer);
    // The last scan runs from the last SOS marker to EOI at the end.
    const std::size_t lastScan = file.rfind("\xFF\xDA");
    const std::string refinement = file.substr(lastScan, file.size() - 2 - lastScan);
    std::string out = file.substr(0, file.size() - 2);
    for (int i = 3; i < scans; ++i)
        out += refinement;
    return out + "\xFF\xD9";
}

} // namespace attnviz::test
