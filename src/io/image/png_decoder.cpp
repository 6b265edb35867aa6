// PNG through libpng (Debian's libpng16), turned into what Pillow's convert("RGB") makes of it.
// libpng's progressive reader is used because it can stop where the picture is complete, as
// Pillow does: the sequential one inflates the rest of the image data to its end, and a 17 MB
// file can hold 16 GiB of surplus zeros. Ancillary chunks are skipped unread (colour profiles and
// text are compressed too, and nothing of them reaches RGB). libpng reports errors by longjmp:
// every object that lives across setjmp is reached through a pointer set before it.
#include "io/image/image_decoders.h"

#include "io/file_error.h"
#include "io/safetensors.h"

#include <png.h>

#include <csetjmp>
#include <cstring>
#include <memory>

namespace attnviz::io::image_decoders {
namespace {

// What setjmp returns when the row callback has the last row: the picture is complete.
constexpr int kComplete = 2;

struct PngState {
    char message[256] = {};
    png_uint_32 width = 0;
    png_uint_32 height = 0;
    int colour = 0;
    int outDepth = 8;
    int channels = 3;
    int lastPass = 0;
    std::vector<unsigned char> pixels;
    std::vector<png_bytep> rows;
};

void onError(png_structp png, png_const_charp message)
{
    auto* s = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(s->message, sizeof s->message, "%s", message);
    png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) { }

// The header is read: the transforms to 8-bit RGB (or 16-bit, read by its high byte below).
void onInfo(png_structp png, png_infop info)
{
    auto* s = static_cast<PngState*>(png_get_progressive_ptr(png));
    s->width = png_get_image_width(png, info);
    s->height = png_get_image_height(png, info);
    s->colour = png_get_color_type(png, info);
    const int depth = png_get_bit_depth(png, info);
    if (s->colour == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if ((s->colour & PNG_COLOR_MASK_COLOR) == 0 && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    // Pillow's convert("RGB") drops alpha; it does not composite. (Expanding a palette adds
    // its tRNS as alpha too; the samples after the first three are skipped below.)
    if (s->colour & PNG_COLOR_MASK_ALPHA)
        png_set_strip_alpha(png);
    // With interlace handling every pass calls back for every row of the picture.
    s->lastPass = png_set_interlace_handling(png) - 1;
    png_read_update_info(png, info);
    const std::size_t rowBytes = png_get_rowbytes(png, info);
    s->channels = png_get_channels(png, info);
    s->outDepth = png_get_bit_depth(png, info);
    s->pixels.assign(rowBytes * s->height, 0);
    s->rows.resize(s->height);
    for (std::size_t y = 0; y < s->height; ++y)
        s->rows[y] = s->pixels.data() + y * rowBytes;
}

void onRow(png_structp png, png_bytep row, png_uint_32 rowNumber, int pass)
{
    auto* s = static_cast<PngState*>(png_get_progressive_ptr(png));
    if (rowNumber >= s->height)
        return;
    png_progressive_combine_row(png, s->rows[rowNumber], row);
    if (pass == s->lastPass && rowNumber + 1 == s->height)
        png_longjmp(png, kComplete);
}

std::uint32_t bigEndian(std::string_view bytes, std::size_t at)
{
    const auto b = [&](std::size_t i) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i]));
    };
    return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

// The chunks before the first IDAT, read before libpng decodes anything: the size the header
// claims and the memory it takes, and APNG's acTL, which libpng itself skips (it would show the
// first frame only).
void inspectChunks(std::string_view bytes, const std::string& name, const PictureMemoryCheck& check)
{
    std::size_t at = 8;
    while (at + 8 <= bytes.size()) {
        const std::uint32_t length = bigEndian(bytes, at);
        const std::string_view type = bytes.substr(at + 4, 4);
        if (type == "IHDR" && at + 21 <= bytes.size()) {
            const std::uint32_t width = bigEndian(bytes, at + 8);
            const std::uint32_t height = bigEndian(bytes, at + 12);
            checkPixelCount(width, height, name);
            const auto depth = static_cast<unsigned char>(bytes[at + 16]);
            const auto colour = static_cast<unsigned char>(bytes[at + 17]);
            // The rows libpng fills (a palette may expand to RGBA), then the RGB picture.
            const std::uint64_t samples = colour == PNG_COLOR_TYPE_PALETTE ? 4
                : (colour & PNG_COLOR_MASK_COLOR)                          ? 3
                                                                           : 1;
            const std::uint64_t pixels = std::uint64_t{width} * height;
            if (check)
                check(bytes.size() + pixels * samples * (depth == 16 ? 2 : 1) + pixels * 3,
                      "Decoding the " + std::to_string(width) + " × " + std::to_string(height) +
                          " picture " + printable(name));
        }
        if (type == "acTL")
            throw FormatError(printable(name) +
                              " is an animated PNG; AttnViz reads still pictures.");
        if (type == "IDAT" || length > bytes.size() - at - 8)
            return; // the picture begins, or the file is cut: libpng says how
        at += 12 + length;
    }
}

} // namespace

DecodedImage decodePng(std::string_view bytes, const std::string& name,
                       const PictureMemoryCheck& check)
{
    inspectChunks(bytes, name, check);
    const auto state = std::make_unique<PngState>();
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, state.get(), onError, onWarning);
    if (!png)
        throw FormatError(printable(name) + " could not be read: libpng had no memory.");
    png_infop info = png_create_info_struct(png);
    bool complete = false; // set only after the jump, so it need not be volatile
    switch (setjmp(png_jmpbuf(png))) {
    case 0:
        png_set_progressive_read_fn(png, state.get(), onInfo, onRow, nullptr);
        png_set_user_limits(png, 1u << 20, 1u << 20);
        png_set_chunk_malloc_max(png, 64u << 20);
        // Every chunk but IHDR, PLTE, tRNS, IDAT and IEND is skipped without being inflated.
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
        png_process_data(png, info, reinterpret_cast<png_bytep>(const_cast<char*>(bytes.data())),
                         bytes.size());
        // The data ran out before the last row: Pillow refuses a truncated PNG too.
        std::snprintf(state->message, sizeof state->message,
                      "the file ends before the picture does");
        break;
    case kComplete:
        complete = true;
        break;
    default:
        break;
    }
    png_destroy_read_struct(&png, &info, nullptr);
    if (!complete)
        throw FormatError(printable(name) +
                          " is not a readable PNG: " + printable(state->message, 120) + ".");

    const auto image = std::make_unique<DecodedImage>();
    const std::size_t width = state->width, height = state->height;
    const int channels = state->channels;
    image->width = static_cast<int>(width);
    image->height = static_cast<int>(height);
    image->rgb.resize(width * height * 3);
    const bool grey16 = state->outDepth == 16 && state->colour == PNG_COLOR_TYPE_GRAY;
    const std::size_t sampleBytes = state->outDepth == 16 ? 2 : 1;
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
