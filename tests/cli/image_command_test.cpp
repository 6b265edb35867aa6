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

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;
using ImageCommands = TempFolderTest;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kData = ATTNVIZ_TEST_DATA_DIR;

TEST_F(ImageCommands, TraceWritesThePreparedPictureAndTheLogits)
{
    const auto images = io::SafetensorsFile::read(kData + "/images/reference.safetensors");
    for (const char* picture : {"smooth.jpg", "palette4.png", "grey16.png"}) {
        SCOPED_TRACE(picture);
        const std::string out = path(std::string(picture) + ".safetensors");
        const ProcessResult r = runProcess(kCli, {"trace", "--model", kData + "/hf/vit", "--image",
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
    const ProcessResult r =
        runProcess(kCli, {"rollout", "--model", kData + "/hf/deit", "--image",
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

} // namespace
} // namespace attnviz::test
