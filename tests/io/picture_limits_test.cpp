// Pictures the decoders read in bounded work (#45): every PNG layout, interlaced or not, decodes
// to the samples it was built from (the reference is the builder, support/picture_files.h); a PNG
// is read to its last row and no further, and its ancillary chunks are not inflated; a
// progressive JPEG of too many scans, a JPEG smaller than its blocks and one whose data stops
// early are refused; the memory a picture takes is asked of the caller before it is allocated.
#include "io/image/decoded_image.h"
#include "io/image/image_preparation.h"
#include "io/input_file.h"
#include "io/safetensors.h"
#include "support/picture_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

const std::string kImages = std::string(ATTNVIZ_TEST_DATA_DIR) + "/images/";

int channelsOf(int colourType)
{
    return colourType == 0 ? 1 : colourType == 2 ? 3 : colourType == 4 ? 2 : 4;
}

PngPicture randomPicture(int width, int height, int colourType, int depth, bool interlaced)
{
    PngPicture p;
    p.width = width;
    p.height = height;
    p.colourType = colourType;
    p.bitDepth = depth;
    p.interlaced = interlaced;
    std::mt19937 random(static_cast<unsigned>(width * 131 + height * 7 + colourType));
    p.samples.resize(static_cast<std::size_t>(width) * height * channelsOf(colourType));
    for (std::uint8_t& s : p.samples)
        s = static_cast<std::uint8_t>(random() % 4 == 0 ? 0 : random());
    return p;
}

// What Pillow's convert("RGB") gives: grey repeated, alpha dropped, 16-bit by its high byte
// except 16-bit grey, which is clipped at 255 (each sample here is one byte twice).
std::uint8_t expectedSample(const PngPicture& p, int y, int x, int c)
{
    const int channels = channelsOf(p.colourType);
    const bool colour = p.colourType == 2 || p.colourType == 6;
    const std::uint8_t v =
        p.samples[(static_cast<std::size_t>(y) * p.width + x) * channels + (colour ? c : 0)];
    if (p.bitDepth == 16 && p.colourType == 0)
        return v ? 255 : 0;
    return v;
}

std::string refusal(std::string_view bytes, const std::string& name,
                    const io::PictureMemoryCheck& check = {})
{
    try {
        io::decodeImage(bytes, name, check);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(read)";
}

TEST(PictureLimits, EveryPngLayoutDecodesToItsSamples)
{
    for (const int colourType : {0, 2, 4, 6})
        for (const int depth : {8, 16})
            for (const bool interlaced : {false, true})
                for (const auto& [width, height] :
                     {std::pair{1, 1}, {1, 9}, {7, 1}, {5, 3}, {13, 17}, {64, 33}}) {
                    const PngPicture p =
                        randomPicture(width, height, colourType, depth, interlaced);
                    SCOPED_TRACE(::testing::Message()
                                 << "colour type " << colourType << ", " << depth << " bits, "
                                 << width << " × " << height << (interlaced ? ", Adam7" : ""));
                    const io::DecodedImage image = io::decodeImage(pngFile(p), "p.png");
                    ASSERT_EQ(image.width, width);
                    ASSERT_EQ(image.height, height);
                    int differing = 0;
                    for (int y = 0; y < height; ++y)
                        for (int x = 0; x < width; ++x)
                            for (int c = 0; c < 3; ++c)
                                differing += image.at(y, x, c) != expectedSample(p, y, x, c);
                    EXPECT_EQ(differing, 0);
                }
}

// Pillow stops at the last row; so does AttnViz, however much the stream holds after it.
TEST(PictureLimits, APngIsReadToItsLastRowAndNoFurther)
{
    for (const bool interlaced : {false, true}) {
        PngPicture p = randomPicture(48, 48, 2, 8, interlaced);
        const io::DecodedImage plain = io::decodeImage(pngFile(p), "plain.png");
        p.surplusZeros = std::uint64_t{16} << 30; // 16 GiB: minutes of inflating, were it read
        const std::string bomb = pngFile(p);
        EXPECT_LT(bomb.size(), 20u << 20);
        const io::DecodedImage read = io::decodeImage(bomb, "surplus.png");
        EXPECT_EQ(read.rgb, plain.rgb);
    }
}

TEST(PictureLimits, AncillaryChunksAreSkippedUninflated)
{
    PngPicture p = randomPicture(16, 16, 2, 8, false);
    const io::DecodedImage plain = io::decodeImage(pngFile(p), "plain.png");
    // 16 GiB of text, and a colour profile that is not even zlib.
    for (int i = 0; i < 16; ++i)
        p.chunksBeforeData.push_back(zTxtChunk(std::uint64_t{1} << 30));
    p.chunksBeforeData.push_back(pngChunk("iCCP", std::string("icc\0\0", 5) + "not zlib"));
    const io::DecodedImage read = io::decodeImage(pngFile(p), "text.png");
    EXPECT_EQ(read.rgb, plain.rgb);
}

TEST(PictureLimits, APngThatEndsBeforeItsLastRowIsRefused)
{
    const std::string whole = pngFile(randomPicture(64, 64, 6, 8, true));
    const std::string cut = whole.substr(0, whole.size() / 2);
    EXPECT_THAT(refusal(cut, "cut.png"),
                HasSubstr("cut.png is not a readable PNG: the file ends before the picture does"));
}

TEST(PictureLimits, AProgressiveJpegOfTooManyScansIsRefused)
{
    const io::DecodedImage atLimit =
        io::decodeImage(progressiveJpeg(64, 48, io::kMaxJpegScans), "limit.jpg");
    EXPECT_EQ(atLimit.width, 64);
    EXPECT_EQ(atLimit.height, 48);
    const std::string many = progressiveJpeg(64, 48, 10000);
    EXPECT_THAT(refusal(many, "scans.jpg"),
                HasSubstr("scans.jpg is not a readable JPEG: it has more than 100 scans"));
    EXPECT_THAT(refusal(progressiveJpeg(64, 48, io::kMaxJpegScans + 1), "one_more.jpg"),
                HasSubstr("more than 100 scans"));
}

// The header's size in SOF (height, then width) rewritten.
std::string withClaimedSize(std::string jpeg, int width, int height)
{
    const std::size_t sof = jpeg.find("\xFF\xC2");
    jpeg[sof + 5] = static_cast<char>(height >> 8);
    jpeg[sof + 6] = static_cast<char>(height & 0xFF);
    jpeg[sof + 7] = static_cast<char>(width >> 8);
    jpeg[sof + 8] = static_cast<char>(width & 0xFF);
    return jpeg;
}

TEST(PictureLimits, AJpegSmallerThanItsBlocksOrCutShortIsRefused)
{
    const std::string small = withClaimedSize(progressiveJpeg(64, 64, 3), 65500, 1024);
    bool asked = false;
    const std::string sentence =
        refusal(small, "claims.jpg", [&](std::uint64_t, const std::string&) { asked = true; });
    EXPECT_THAT(sentence, HasSubstr("claims.jpg claims 65500 × 1024 pixels in "));
    EXPECT_THAT(sentence, HasSubstr("takes at least 131008 (a bit for each 8 × 8 block)"));
    EXPECT_FALSE(asked) << "memory was asked for a picture refused from its header";
    // Data that stops at a marker: libjpeg would fill the rest with grey.
    const std::string jpeg = io::readFile(kImages + "smooth.jpg");
    const std::string stopped = jpeg.substr(0, jpeg.size() - 40) + "\xFF\xD9";
    EXPECT_THAT(refusal(stopped, "stopped.jpg"),
                HasSubstr("stopped.jpg is not a readable JPEG: Corrupt JPEG data: premature end of "
                          "data segment."));
}

TEST(PictureLimits, TheMemoryAPictureTakesIsAskedBeforeItIsAllocated)
{
    // An 8192 × 8192 RGBA picture of 16-bit samples: the header alone.
    std::string header;
    for (const std::uint32_t v : {8192u, 8192u})
        for (int shift = 24; shift >= 0; shift -= 8)
            header += static_cast<char>((v >> shift) & 0xFF);
    header += std::string("\x10\x06\0\0\0", 5);
    const std::string png = "\x89PNG\r\n\x1a\n" + pngChunk("IHDR", header) + pngChunk("IEND", "");
    std::uint64_t asked = 0;
    const auto refuse = [&](std::uint64_t bytes, const std::string& what) {
        asked = bytes;
        throw io::FormatError(what + " needs too much");
    };
    EXPECT_THAT(refusal(png, "deep.png", refuse),
                HasSubstr("Decoding the 8192 × 8192 picture deep.png needs too much"));
    EXPECT_GE(asked, std::uint64_t{8192} * 8192 * (6 + 3)); // the rows without alpha, then RGB

    const std::string jpeg = progressiveJpeg(640, 480, 3);
    EXPECT_THAT(refusal(jpeg, "p.jpg", refuse),
                HasSubstr("Decoding the 640 × 480 picture p.jpg needs too much"));
    // The coefficients of every scan, the grey rows and the RGB copy.
    EXPECT_GE(asked, std::uint64_t{640} * 480 * (2 + 1 + 3));

    // Resizing to a `size` of 16384 for a crop of 32.
    io::ImagePreparation p;
    p.height = p.width = 16384;
    p.centreCrop = true;
    p.cropHeight = p.cropWidth = 32;
    engine::ImageInput input;
    input.height = input.width = 32;
    input.patchSize = 16;
    const io::DecodedImage picture = io::decodeImage(jpeg, "p.jpg");
    try {
        io::pictureAsModelSeesIt(picture, p, input, refuse);
        ADD_FAILURE() << "resized without asking";
    } catch (const io::FormatError& e) {
        EXPECT_THAT(e.what(),
                    HasSubstr("Resizing the 640 × 480 picture to 16384 × 16384 needs too much"));
    }
    EXPECT_GE(asked, std::uint64_t{16384} * 16384 * 3);
}

} // namespace
} // namespace attnviz::test
