// attnviz-cli trace and rollout with --image (#26): the dump's `pixels` are the picture prepared
// as Hugging Face's processor prepares it (tools/make_image_references.py, Pillow), `logits`
// the classifier's, the top classes printed; the rollout covers CLS and every patch; a picture
// for a text model, text for a Vision Transformer, or a picture that cannot be read exits 2 with
// one sentence and writes nothing.
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;
using ImageCommands = TempFolderTest;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kData = ATTNVIZ_TEST_DATA_DIR;

std::string readBytes(const std::string& file)
{
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(ImageCommands, TraceWritesThePreparedPictureAndTheLogits)
{
    const auto images = io::SafetensorsFile::read(kData + "/images/reference.safetensors");
    for (const char* picture : {"smooth.jpg", "palette4.png", "grey16.png"}) {
        SCOPED_TRACE(picture);
        const std::string out = path(std::string(picture) + ".safetensors");
        const ProcessResult r = runProcess(kCli,
                                           {"trace", "--model", kData + "/hf/vit", "--image",
                                            kData + "/images/" + picture, "--dump", out});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto dump = io::SafetensorsFile::read(out);
        // tests/data/hf/vit's preprocessor_config.json is the "vit" preparation: 32 × 32,
        // bilinear, mean and deviation 0.5.
        const engine::Tensor pixels = tensorFrom(dump, "pixels");
        const engine::Tensor expected = tensorFrom(images, std::string(picture) + ".vit");
        ASSERT_EQ(pixels.shape(), expected.shape());
        for (std::size_t k = 0; k < pixels.values().size(); ++k)
            ASSERT_NEAR(pixels.values()[k], expected.values()[k], 1e-5) << k;
        EXPECT_EQ(tensorFrom(dump, "logits").shape(), (std::vector<std::int64_t>{1, 5}));
        EXPECT_EQ(dump.metadata().find("axes.pixels")->asString(), "channel,height,width");
        EXPECT_THAT(r.out, HasSubstr("circle"));
        EXPECT_THAT(r.out, HasSubstr(" %  "));
    }
}

TEST_F(ImageCommands, RolloutCoversTheFirstTokenAndEveryPatch)
{
    const ProcessResult r = runProcess(kCli,
                                       {"rollout", "--model", kData + "/hf/deit", "--image",
                                        kData + "/images/rgb8.png", "--out", path("r.npy")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("over 18 tokens")); // CLS, the distillation token, 16 patches
}

TEST_F(ImageCommands, WhatDoesNotFitIsRefusedInOneSentence)
{
    const std::vector<std::pair<std::vector<std::string>, const char*>> cases = {
        {{"trace", "--model", kData + "/hf/vit", "--text", "a cat"}, "reads a picture"},
        {{"trace", "--model", "genesis", "--image", kData + "/images/rgb8.png"}, "reads text"},
        {{"trace", "--model", kData + "/hf/vit", "--image", kData + "/images/bad/bomb.png"},
         "8192 × 8192"},
        {{"trace", "--model", kData + "/hf/vit", "--image", kData + "/images/bad/cmyk.jpg"},
         "CMYK"},
        {{"trace", "--model", kData + "/hf/vit", "--image", path("missing.png")}, "missing.png"},
        {{"trace", "--model", kData + "/hf/vit", "--image", dir()}, "directory"},
        {{"trace", "--model", kData + "/hf/vit", "--image", kData + "/images/rgb8.png", "--text",
          "x"},
         "not both"},
        {{"trace", "--model", kData + "/hf/vit-model", "--image", kData + "/images/rgb8.png"},
         "1 channel"},
    };
    for (const auto& [args, words] : cases) {
        std::vector<std::string> full = args;
        full.insert(full.end(), {"--dump", path("out.safetensors")});
        const ProcessResult r = runProcess(kCli, full);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_THAT(r.err, HasSubstr(words));
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_TRUE(entries(dir()).empty());
}

TEST_F(ImageCommands, PictureDrawsTheRowOverThePictureInEachFormat)
{
    const std::string model = kData + "/hf/deit", image = kData + "/images/rgb8.png";
    const ProcessResult png =
        runProcess(kCli,
                   {"picture", "--model", model, "--image", image, "--from", "1,2", "--layer", "0",
                    "--head", "1", "--out", path("p.png")});
    ASSERT_EQ(png.exitCode, 0) << png.err;
    EXPECT_THAT(png.out, HasSubstr("layer 0 · head 1 · from 1,2"));
    const std::string bytes = readBytes(path("p.png"));
    ASSERT_GT(bytes.size(), 24u);
    EXPECT_EQ(bytes.substr(1, 3), "PNG");
    // IHDR: the default 1200 × 1040.
    const auto be32 = [&](std::size_t at) {
        return (static_cast<unsigned char>(bytes[at]) << 24) |
            (static_cast<unsigned char>(bytes[at + 1]) << 16) |
            (static_cast<unsigned char>(bytes[at + 2]) << 8) |
            static_cast<unsigned char>(bytes[at + 3]);
    };
    EXPECT_EQ(be32(16), 1200u);
    EXPECT_EQ(be32(20), 1040u);
    const ProcessResult svg =
        runProcess(kCli,
                   {"picture", "--model", model, "--image", image, "--rollout", "--colour-map",
                    "magma", "--out", path("p.svg"), "--quiet"});
    ASSERT_EQ(svg.exitCode, 0) << svg.err;
    EXPECT_EQ(svg.out, "");
    EXPECT_THAT(readBytes(path("p.svg")),
                HasSubstr("rollout of 2 layers (mean of heads) · from [CLS]"));
    const ProcessResult pdf = runProcess(
        kCli,
        {"picture", "--model", model, "--image", image, "--from", "dist", "--out", path("p.pdf")});
    ASSERT_EQ(pdf.exitCode, 0) << pdf.err;
    EXPECT_EQ(readBytes(path("p.pdf")).substr(0, 5), "%PDF-");
}

TEST_F(ImageCommands, PictureRefusesWhatItCannotDrawInOneSentence)
{
    const std::string model = kData + "/hf/vit", image = kData + "/images/rgb8.png";
    const std::vector<std::pair<std::vector<std::string>, const char*>> cases = {
        {{"--model", "genesis", "--image", image}, "reads text"},
        {{"--model", model, "--image", image, "--from", "4,0"}, "row 0 to 3"},
        {{"--model", model, "--image", image, "--from", "dist"}, "expected cls or a patch"},
        {{"--model", model, "--image", image, "--head", "2"}, "--head"},
        {{"--model", model, "--image", image, "--layer", "2"}, "--layer"},
        {{"--model", model, "--image", image, "--rollout", "--layer", "0"}, "without --layer"},
        {{"--model", model, "--image", image, "--opacity", "1.5"}, "--opacity"},
        {{"--model", model, "--image", image, "--colour-map", "rdbu"}, "sequential"},
        {{"--model", model, "--image", kData + "/images/bad/bomb.png"}, "8192 × 8192"},
    };
    for (const auto& [args, words] : cases) {
        std::vector<std::string> full = {"picture"};
        full.insert(full.end(), args.begin(), args.end());
        full.insert(full.end(), {"--out", path("out.png")});
        const ProcessResult r = runProcess(kCli, full);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_THAT(r.err, HasSubstr(words));
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const ProcessResult bmp =
        runProcess(kCli, {"picture", "--model", model, "--image", image, "--out", path("out.bmp")});
    EXPECT_EQ(bmp.exitCode, 2);
    EXPECT_THAT(bmp.err, HasSubstr(".png, .svg or .pdf"));
    EXPECT_TRUE(entries(dir()).empty());
}

} // namespace
} // namespace attnviz::test
