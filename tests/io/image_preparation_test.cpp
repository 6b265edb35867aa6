// Pictures for Vision Transformers (#26), against Debian's Pillow (tools/make_image_references.py):
// every PNG colour type and bit depth and RGB and grey JPEG decode to what Pillow's
// convert("RGB") makes of them, exactly; prepared as ViT's and DeiT's processors prepare them
// (Pillow's bilinear or bicubic resize, a centre crop, rescale, normalise) they are within 1/255
// of transformers' numbers per channel (in practice equal); a picture already of the model's size
// is only rescaled and normalised; what cannot be read is refused in one sentence.
#include "io/image/decoded_image.h"
#include "io/image/image_preparation.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

const std::string kImages = std::string(ATTNVIZ_TEST_DATA_DIR) + "/images/";

const char* const kPictures[] = {
    "grey1.png",          "grey2.png",  "grey4.png", "grey8.png", "grey16.png", "grey_alpha8.png",
    "grey_alpha16.png",   "rgb8.png",   "rgb16.png", "rgba8.png", "rgba16.png", "palette4.png",
    "palette_alpha8.png", "smooth.jpg", "grey.jpg",  "smooth.png"};

io::SafetensorsFile reference()
{
    return io::SafetensorsFile::read(kImages + "reference.safetensors");
}

struct Preparation {
    const char* name;
    io::ImagePreparation preparation;
};

// The preparations of the script, as preprocessor_config.json would give them.
std::vector<Preparation> preparations()
{
    io::ImagePreparation vit;
    vit.height = vit.width = 32;
    io::ImagePreparation deit;
    deit.resample = io::Resample::Bicubic;
    deit.height = deit.width = 40;
    deit.centreCrop = true;
    deit.cropHeight = deit.cropWidth = 32;
    deit.mean = {0.485f, 0.456f, 0.406f};
    deit.deviation = {0.229f, 0.224f, 0.225f};
    io::ImagePreparation up;
    up.resample = io::Resample::Bicubic;
    up.height = 50;
    up.width = 37;
    up.deviation = {0.25f, 0.25f, 0.25f};
    io::ImagePreparation same;
    same.height = 24;
    same.width = 32;
    same.mean = {0, 0, 0};
    same.deviation = {1, 1, 1};
    return {{"vit", vit}, {"deit", deit}, {"bicubic_up", up}, {"same", same}};
}

engine::ImageInput inputOf(int height, int width)
{
    engine::ImageInput input;
    input.height = height;
    input.width = width;
    input.patchSize = 1;
    return input;
}

TEST(ImageDecoding, EveryKindOfPictureBecomesThePixelsPillowGives)
{
    const auto ref = reference();
    for (const char* name : kPictures) {
        SCOPED_TRACE(name);
        const io::DecodedImage image = io::readImage(kImages + name);
        const io::TensorEntry* expected = ref.find(std::string(name) + ".rgb");
        ASSERT_TRUE(expected);
        ASSERT_EQ(expected->shape, (std::vector<std::int64_t>{image.height, image.width, 3}));
        ASSERT_EQ(image.rgb.size(), expected->bytes.size());
        int differing = 0;
        for (std::size_t k = 0; k < image.rgb.size(); ++k)
            differing += image.rgb[k] != static_cast<std::uint8_t>(expected->bytes[k]);
        EXPECT_EQ(differing, 0) << "of " << image.rgb.size() << " samples";
    }
}

TEST(ImagePreparation, ResizedCroppedAndNormalisedAsTransformersDoes)
{
    const auto ref = reference();
    for (const char* name : kPictures)
        for (const Preparation& p : preparations()) {
            SCOPED_TRACE(std::string(name) + " " + p.name);
            const io::DecodedImage image = io::readImage(kImages + name);
            const int height =
                p.preparation.centreCrop ? p.preparation.cropHeight : p.preparation.height;
            const int width =
                p.preparation.centreCrop ? p.preparation.cropWidth : p.preparation.width;
            const engine::Tensor ours =
                io::prepareImage(image, p.preparation, inputOf(height, width));
            const engine::Tensor theirs = tensorFrom(ref, std::string(name) + "." + p.name);
            ASSERT_EQ(ours.shape(), theirs.shape());
            double largest = 0;
            for (std::size_t c = 0; c < 3; ++c) {
                // One 8-bit step of this channel, after normalising.
                const double step = 1.0 / 255.0 / p.preparation.deviation[c];
                const std::size_t plane = static_cast<std::size_t>(height * width);
                for (std::size_t k = 0; k < plane; ++k)
                    largest = std::max(
                        largest,
                        std::abs(ours.values()[c * plane + k] - theirs.values()[c * plane + k]) /
                            step);
            }
            EXPECT_LE(largest, 1.0) << "in 8-bit steps";
            EXPECT_LT(largest, 1e-3) << "Pillow's resampling, to the bit";
        }
}

TEST(ImagePreparation, APictureOfTheModelsSizeIsUsedAsItIs)
{
    io::ImagePreparation deit = preparations()[1].preparation;
    const io::DecodedImage image = io::readImage(kImages + "rgb8.png");
    // The model reads 24 × 32: the 40 × 40 resize and the crop are skipped.
    const engine::Tensor t = io::prepareImage(image, deit, inputOf(24, 32));
    EXPECT_FLOAT_EQ(t.at({1, 3, 5}),
                    (static_cast<float>(image.at(3, 5, 1) / 255.0) - deit.mean[1]) /
                        deit.deviation[1]);
}

using ImageFiles = TempFolderTest;

TEST_F(ImageFiles, WhatCannotBeReadIsRefusedInOneSentence)
{
    const std::pair<const char*, const char*> bad[] = {
        {"truncated.png", "not a readable PNG"},   {"bomb.png", "at most 67108864"},
        {"not_an_image.png", "not a PNG or JPEG"}, {"empty.jpg", "not a PNG or JPEG"},
        {"animated.png", "animated PNG"},          {"cmyk.jpg", "CMYK"}};
    for (const auto& [name, words] : bad) {
        try {
            io::readImage(kImages + "bad/" + name);
            ADD_FAILURE() << name << " was read";
        } catch (const std::exception& e) {
            EXPECT_THAT(e.what(), HasSubstr(words)) << name;
            EXPECT_THAT(e.what(), HasSubstr(name));
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
    }
    // A truncated JPEG, a directory and a FIFO.
    const std::string jpeg = io::readFile(kImages + "smooth.jpg");
    std::ofstream(path("cut.jpg"), std::ios::binary) << jpeg.substr(0, jpeg.size() / 2);
    EXPECT_THROW(io::readImage(path("cut.jpg")), io::FormatError);
    EXPECT_THROW(io::readImage(dir()), io::FileError);
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    EXPECT_THROW(io::readImage(path("fifo")), io::FileError);
}

TEST_F(ImageFiles, ThePreparationIsReadFromTheProcessorsFile)
{
    std::ofstream(path("preprocessor_config.json"))
        << R"({"do_resize": true, "size": {"height": 256, "width": 256}, "resample": 3,
              "do_center_crop": true, "crop_size": 224, "do_rescale": true,
              "rescale_factor": 0.00392156862745098, "do_normalize": true,
              "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]})";
    const io::ImagePreparation p = io::readImagePreparation(dir(), inputOf(224, 224));
    EXPECT_EQ(p.height, 256);
    EXPECT_EQ(p.resample, io::Resample::Bicubic);
    EXPECT_TRUE(p.centreCrop);
    EXPECT_EQ(p.cropWidth, 224);
    EXPECT_FLOAT_EQ(p.deviation[2], 0.225f);
    for (const char* bad : {R"({"resample": 0})", R"({"size": {"shortest_edge": 224}})",
                            R"({"image_std": [0.5, 0, 0.5]})", R"({"image_mean": [1, 2]})"}) {
        std::ofstream(path("preprocessor_config.json")) << bad;
        EXPECT_THROW(io::readImagePreparation(dir(), inputOf(224, 224)), std::exception) << bad;
    }
    // Not JSON (NaN is JavaScript's, not JSON's): the sentence names the file.
    std::ofstream(path("preprocessor_config.json")) << R"({"image_std": NaN})";
    try {
        io::readImagePreparation(dir(), inputOf(224, 224));
        ADD_FAILURE() << "a NaN was read as JSON";
    } catch (const io::FormatError& e) {
        EXPECT_THAT(
            e.what(),
            ::testing::HasSubstr(path("preprocessor_config.json") + " is not valid JSON: "));
    }
    // Without the file: ViT's defaults at the model's size.
    std::filesystem::remove(path("preprocessor_config.json"));
    const io::ImagePreparation d = io::readImagePreparation(dir(), inputOf(32, 48));
    EXPECT_EQ(d.height, 32);
    EXPECT_EQ(d.width, 48);
    EXPECT_EQ(d.resample, io::Resample::Bilinear);
}

} // namespace
} // namespace attnviz::test
