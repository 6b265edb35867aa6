// JPEG through libjpeg-turbo (Debian's, the library Debian's Pillow decodes with, at the same
// defaults: the accurate integer DCT and fancy upsampling). Where Pillow fills missing or corrupt
// data with grey and reads any number of scans, AttnViz refuses: a picture partly grey is a
// silently wrong input, and every scan of a progressive file goes over the whole picture, so a
// few kilobytes of empty scans cost minutes. libjpeg reports errors by longjmp; what lives across
// setjmp is reached through a pointer set before it.
#include "io/image/image_decoders.h"

#include "io/file_error.h"
#include "io/safetensors.h"

#include <cstdio>
#include <jerror.h>
#include <jpeglib.h>

#include <csetjmp>
#include <memory>

namespace attnviz::io::image_decoders {
namespace {

struct JpegState {
    jpeg_decompress_struct info{};
    jpeg_error_mgr errors{};
    jpeg_progress_mgr progress{};
    std::jmp_buf jump{};
    char message[JMSG_LENGTH_MAX] = {};
    std::vector<unsigned char> pixels;
    bool created = false;
};

void onError(j_common_ptr info)
{
    auto* s = reinterpret_cast<JpegState*>(info->client_data);
    (*info->err->format_message)(info, s->message);
    std::longjmp(s->jump, 1);
}

// Warnings are not printed. Those that mean pixels are made up (the file ends, a marker or a
// code comes where data should be) are errors.
void onMessage(j_common_ptr info, int level)
{
    const int code = info->err->msg_code;
    if (level < 0 &&
        (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE ||
         code == JWRN_MUST_RESYNC))
        onError(info);
}

// Called as libjpeg reads each row of blocks: where a progressive file's scans are counted.
void onProgress(j_common_ptr info)
{
    auto* s = reinterpret_cast<JpegState*>(info->client_data);
    if (s->info.input_scan_number > kMaxJpegScans) {
        std::snprintf(s->message, sizeof s->message,
                      "it has more than %d scans, where encoders write about ten", kMaxJpegScans);
        std::longjmp(s->jump, 1);
    }
}

// Each 8 × 8 block of each component takes at least one bit of Huffman-coded data (its DC
// difference), so a file smaller than that holds less than its header claims. Arithmetic coding
// has no such floor.
std::uint64_t leastHuffmanBytes(const jpeg_decompress_struct& info)
{
    std::uint64_t blocks = 0;
    for (int c = 0; c < info.num_components; ++c)
        blocks +=
            std::uint64_t{info.comp_info[c].width_in_blocks} * info.comp_info[c].height_in_blocks;
    return info.arith_code ? 0 : blocks / 8;
}

// Peak bytes of a decode: the file, the whole picture's coefficients for a file of several scans,
// the decoded rows and the RGB copy.
std::uint64_t decodingBytes(const jpeg_decompress_struct& info, std::size_t fileBytes)
{
    std::uint64_t coefficients = 0;
    if (jpeg_has_multiple_scans(const_cast<j_decompress_ptr>(&info)))
        for (int c = 0; c < info.num_components; ++c)
            coefficients += std::uint64_t{info.comp_info[c].width_in_blocks} *
                info.comp_info[c].height_in_blocks * DCTSIZE2 * sizeof(JCOEF);
    const std::uint64_t pixels = std::uint64_t{info.image_width} * info.image_height;
    const std::uint64_t channels = info.jpeg_color_space == JCS_GRAYSCALE ? 1 : 3;
    return fileBytes + coefficients + pixels * channels + pixels * 3;
}

} // namespace

DecodedImage decodeJpeg(std::string_view bytes, const std::string& name,
                        const PictureMemoryCheck& check)
{
    const auto s = std::make_unique<JpegState>();
    s->info.err = jpeg_std_error(&s->errors);
    s->errors.error_exit = onError;
    s->errors.emit_message = onMessage;
    s->progress.progress_monitor = onProgress;
    s->info.client_data = s.get();
    if (setjmp(s->jump)) {
        if (s->created)
            jpeg_destroy_decompress(&s->info);
        throw FormatError(printable(name) +
                          " is not a readable JPEG: " + printable(s->message, 120) + ".");
    }
    jpeg_create_decompress(&s->info);
    s->created = true;
    s->info.progress = &s->progress;
    jpeg_mem_src(&s->info, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&s->info, TRUE);
    const std::int64_t width = s->info.image_width, height = s->info.image_height;
    const J_COLOR_SPACE space = s->info.jpeg_color_space;
    // What is refused from the header is refused before libjpeg allocates the picture.
    const auto release = [&] {
        jpeg_destroy_decompress(&s->info);
        s->created = false;
    };
    if (space == JCS_CMYK || space == JCS_YCCK) {
        release();
        throw FormatError(printable(name) + " is a CMYK JPEG; convert it to RGB first.");
    }
    if (width * height > kMaxImagePixels || width == 0 || height == 0) {
        release();
        checkPixelCount(width, height, name);
    }
    if (const std::uint64_t least = leastHuffmanBytes(s->info); bytes.size() < least) {
        release();
        throw FormatError(printable(name) + " claims " + std::to_string(width) + " × " +
                          std::to_string(height) + " pixels in " + std::to_string(bytes.size()) +
                          " bytes; a JPEG of that size takes at least " + std::to_string(least) +
                          " (a bit for each 8 × 8 block), so its data is missing.");
    }
    if (check) {
        const std::uint64_t peak = decodingBytes(s->info, bytes.size());
        try {
            check(peak,
                  "Decoding the " + std::to_string(width) + " × " + std::to_string(height) +
                      " picture " + printable(name));
        } catch (...) {
            release();
            throw;
        }
    }
    s->info.out_color_space = space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&s->info);
    const int channels = s->info.output_components;
    const std::size_t rowBytes = static_cast<std::size_t>(width) * channels;
    s->pixels.resize(rowBytes * height);
    while (s->info.output_scanline < s->info.output_height) {
        unsigned char* row = s->pixels.data() + rowBytes * s->info.output_scanline;
        jpeg_read_scanlines(&s->info, &row, 1);
    }
    jpeg_finish_decompress(&s->info);
    jpeg_destroy_decompress(&s->info);
    s->created = false;

    DecodedImage image;
    image.width = static_cast<int>(width);
    image.height = static_cast<int>(height);
    image.rgb.resize(static_cast<std::size_t>(width * height * 3));
    for (std::int64_t p = 0; p < width * height; ++p)
        for (int c = 0; c < 3; ++c)
            image.rgb[static_cast<std::size_t>(p * 3 + c)] =
                s->pixels[static_cast<std::size_t>(p * channels + (channels == 3 ? c : 0))];
    return image;
}

} // namespace attnviz::io::image_decoders
