// JPEG through libjpeg-turbo (Debian's, the library Debian's Pillow decodes with, at the same
// defaults: the accurate integer DCT and fancy upsampling). libjpeg reports errors by longjmp;
// what lives across setjmp is reached through a pointer set before it.
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

// Warnings are not printed; a file that ends before the picture does is an error, as Pillow
// refuses a truncated JPEG.
void onMessage(j_common_ptr info, int level)
{
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF)
        onError(info);
}

} // namespace

DecodedImage decodeJpeg(std::string_view bytes, const std::string& name)
{
    const auto s = std::make_unique<JpegState>();
    s->info.err = jpeg_std_error(&s->errors);
    s->errors.error_exit = onError;
    s->errors.emit_message = onMessage;
    s->info.client_data = s.get();
    if (setjmp(s->jump)) {
        if (s->created)
            jpeg_destroy_decompress(&s->info);
        throw FormatError(printable(name) +
                          " is not a readable JPEG: " + printable(s->message, 120) + ".");
    }
    jpeg_create_decompress(&s->info);
    s->created = true;
    jpeg_mem_src(&s->info, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&s->info, TRUE);
    const std::int64_t width = s->info.image_width, height = s->info.image_height;
    const J_COLOR_SPACE space = s->info.jpeg_color_space;
    if (space == JCS_CMYK || space == JCS_YCCK || width * height > kMaxImagePixels || width == 0 ||
        height == 0) {
        jpeg_destroy_decompress(&s->info);
        s->created = false;
        if (space == JCS_CMYK || space == JCS_YCCK)
            throw FormatError(printable(name) + " is a CMYK JPEG; convert it to RGB first.");
        checkPixelCount(width, height, name);
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
