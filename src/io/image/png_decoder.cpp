// PNG through libpng (Debian's libpng16), turned into what Pillow's convert("RGB") makes of it.
// libpng reports errors by longjmp: every object that lives across setjmp is reached through a
// pointer set before it, so nothing the jump skips is left half-defined.
#include "io/image/image_decoders.h"

#include "io/file_error.h"
#include "io/safetensors.h"

#include <png.h>

#include <csetjmp>
#include <cstring>
#include <memory>

namespace attnviz::io::image_decoders {
namespace {

struct PngState {
    std::string_view bytes;
    std::size_t position = 8; // after the signature, which decodeImage checked
    char message[256] = {};
    std::vector<unsigned char> pixels;
    std::vector<png_bytep> rows;
};

void readData(png_structp png, png_bytep out, png_size_t length)
{
    auto* s = static_cast<PngState*>(png_get_io_ptr(png));
    if (s->bytes.size() - s->position < length)
        png_error(png, "the file ends before the picture does");
    std::memcpy(out, s->bytes.data() + s->position, length);
    s->position += length;
}

void onError(png_structp png, png_const_charp message)
{
    auto* s = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(s->message, sizeof s->message, "%s", message);
    png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) { }

std::uint32_t bigEndian(std::string_view bytes, std::size_t at)
{
    const auto b = [&](std::size_t i) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i]));
    };
    return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

// The chunks before the first IDAT, read before libpng decodes anything: the size the header
// claims, and APNG's acTL, which libpng itself skips (it would show the first frame only).
void inspectChunks(std::string_view bytes, const std::string& name)
{
    std::size_t at = 8;
    while (at + 8 <= bytes.size()) {
        const std::uint32_t length = bigEndian(bytes, at);
        const std::string_view type = bytes.substr(at + 4, 4);
        if (type == "IHDR" && at + 16 <= bytes.size())
            checkPixelCount(bigEndian(bytes, at + 8), bigEndian(bytes, at + 12), name);
        if (type == "acTL")
            throw FormatError(printable(name) +
                              " is an animated PNG; AttnViz reads still pictures.");
        if (type == "IDAT" || length > bytes.size() - at - 8)
            return; // the picture begins, or the file is cut: libpng says how
        at += 12 + length;
    }
}

} // namespace

DecodedImage decodePng(std::string_view bytes, const std::string& name)
{
    inspectChunks(bytes, name);
    const auto state = std::make_unique<PngState>();
    state->bytes = bytes;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, state.get(), onError, onWarning);
    if (!png)
        throw FormatError(printable(name) + " could not be read: libpng had no memory.");
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw FormatError(printable(name) +
                          " is not a readable PNG: " + printable(state->message, 120) + ".");
    }
    png_set_read_fn(png, state.get(), readData);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, 1u << 20, 1u << 20);
    png_set_chunk_malloc_max(png, 64u << 20);
    png_read_info(png, info);
    const auto width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    const int colour = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (colour == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if ((colour & PNG_COLOR_MASK_COLOR) == 0 && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    // Pillow's convert("RGB") drops alpha; it does not composite. (Expanding a palette adds
    // its tRNS as alpha too; the samples after the first three are skipped below.)
    if (colour & PNG_COLOR_MASK_ALPHA)
        png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const std::size_t rowBytes = png_get_rowbytes(png, info);
    const int channels = png_get_channels(png, info);
    const int outDepth = png_get_bit_depth(png, info);
    state->pixels.resize(rowBytes * height);
    state->rows.resize(height);
    for (std::size_t y = 0; y < height; ++y)
        state->rows[y] = state->pixels.data() + y * rowBytes;
    png_read_image(png, state->rows.data());
    png_destroy_read_struct(&png, &info, nullptr);

    // Declared after the last libpng call: no longjmp can leave it half-built.
    const auto image = std::make_unique<DecodedImage>();
    image->width = static_cast<int>(width);
    image->height = static_cast<int>(height);
    image->rgb.resize(static_cast<std::size_t>(width) * height * 3);
    const bool grey16 = outDepth == 16 && colour == PNG_COLOR_TYPE_GRAY;
    const std::size_t sampleBytes = outDepth == 16 ? 2 : 1;
    for (std::size_t y = 0; y < height; ++y)
        for (std::size_t x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) {
                const unsigned char* sample =
                    state->rows[y] + (x * channels + (channels >= 3 ? c : 0)) * sampleBytes;
                std::uint8_t v = sample[0];
                // Pillow opens 16-bit grey as 32-bit integers, which convert("RGB") clips; the
                // other 16-bit kinds it reads by their high byte.
                if (grey16)
                    v = sample[0] ? 255 : sample[1];
                image->rgb[(y * width + x) * 3 + static_cast<std::size_t>(c)] = v;
            }
    return std::move(*image);
}

} // namespace attnviz::io::image_decoders
