// Attention over a Vision Transformer's picture (#26): the row drawn for a token is PyTorch's
// (tools/make_vit_references.py's float64 pass), patch by patch in the picture's row-major order,
// per head and as the mean of the heads, with the CLS and distillation tokens' share apart; the
// rollout's row is the rollout of PyTorch's weights; the mean attention distance in pixels is
// Dosovitskiy et al.'s, computed here again from patch centres; a click finds its patch; a text
// model, or a layer, head or token out of range, is refused in one sentence.
#include "engine/input_error.h"
#include "lesson/model_run.h"
#include "lesson/picture_attention.h"
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace attnviz::lesson {
namespace {

std::string folder(const std::string& name)
{
    return (std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "hf" / name).string();
}

struct VitRun {
    io::LoadedModel loaded;
    io::SafetensorsFile reference;
    engine::ModelTrace trace;
};

VitRun runOnReference(const std::string& name)
{
    VitRun r{io::loadModel(folder(name)),
             io::SafetensorsFile::read(folder(name) + "/reference.safetensors"),
             {}};
    engine::ModelInput input;
    input.pixels = test::tensorFrom(r.reference, "pixels");
    r.trace = r.loaded.model->forward(input);
    return r;
}

TEST(PictureAttention, TheRowIsPyTorchsLaidOutAsThePicture)
{
    const VitRun r = runOnReference("deit"); // CLS and distillation tokens, 4 × 4 patches
    const engine::ModelConfig& c = r.loaded.model->config();
    for (int layer = 0; layer < 2; ++layer) {
        const engine::Tensor ref =
            test::tensorFrom(r.reference, "layer" + std::to_string(layer) + ".self.weights");
        const auto heads = static_cast<int>(ref.dim(1));
        for (const int token : {0, 1, 7}) {
            for (int head = -1; head < heads; ++head) {
                PictureQuery q;
                q.layer = layer;
                q.head = head;
                q.token = token;
                const PictureAttention a = pictureAttention(r.trace, c, q);
                ASSERT_EQ(a.patchRows, 4);
                ASSERT_EQ(a.patchColumns, 4);
                const auto expected = [&](int key) {
                    double sum = 0;
                    for (int h = 0; h < heads; ++h)
                        if (head < 0 || head == h)
                            sum += ref.matrix({0, h})(token, key);
                    return head < 0 ? sum / heads : sum;
                };
                EXPECT_NEAR(a.onFirstTokens, expected(0) + expected(1), 1e-5);
                for (int row = 0; row < 4; ++row)
                    for (int column = 0; column < 4; ++column)
                        EXPECT_NEAR(a.patches[static_cast<std::size_t>(row * 4 + column)],
                                    expected(2 + row * 4 + column), 1e-5)
                            << layer << " " << token << " " << head << " " << row << "," << column;
            }
        }
    }
    PictureQuery q;
    q.layer = 1;
    q.head = -1;
    q.token = 7;
    EXPECT_EQ(pictureAttention(r.trace, c, q).title, "layer 1 · mean of 2 heads · from 1,1");
}

TEST(PictureAttention, TheRolloutRowIsTheRolloutOfPyTorchsWeights)
{
    const VitRun r = runOnReference("vit");
    std::vector<engine::Tensor> weights;
    for (int layer = 0; layer < 2; ++layer)
        weights.push_back(
            test::tensorFrom(r.reference, "layer" + std::to_string(layer) + ".self.weights"));
    RolloutOptions options;
    options.fusion = HeadFusion::Max;
    options.discardRatio = 0.25;
    const Eigen::MatrixXd expected = attentionRollout({&weights[0], &weights[1]}, options);
    PictureQuery q;
    q.source = PictureSource::Rollout;
    q.rollout = options;
    const PictureAttention a = pictureAttention(r.trace, r.loaded.model->config(), q);
    EXPECT_NEAR(a.onFirstTokens, expected(0, 0), 1e-5);
    double sum = a.onFirstTokens;
    for (std::size_t k = 0; k < a.patches.size(); ++k) {
        EXPECT_NEAR(a.patches[k], expected(0, static_cast<Eigen::Index>(k) + 1), 1e-5);
        sum += a.patches[k];
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(PictureAttention, MeanDistanceIsMeasuredBetweenPatchCentresInPixels)
{
    const VitRun r = runOnReference("vit-model"); // 6 × 4 patches of 4 pixels, 4 heads
    const engine::ImageInput& image = *r.loaded.model->config().image;
    const std::vector<double> distance =
        meanAttentionDistanceInPixels(r.trace, r.loaded.model->config());
    ASSERT_EQ(distance.size(), 2u * 4u);
    const int p = image.patchSize, columns = image.patchColumns(), n = image.patches();
    for (int layer = 0; layer < 2; ++layer) {
        const engine::Tensor ref =
            test::tensorFrom(r.reference, "layer" + std::to_string(layer) + ".self.weights");
        for (int h = 0; h < 4; ++h) {
            double total = 0;
            for (int q = 0; q < n; ++q) {
                const double qx = (q % columns + 0.5) * p, qy = (q / columns + 0.5) * p;
                double weighted = 0, mass = 0;
                for (int k = 0; k < n; ++k) {
                    const double w = ref.matrix({0, h})(1 + q, 1 + k);
                    const double kx = (k % columns + 0.5) * p, ky = (k / columns + 0.5) * p;
                    weighted += w * std::sqrt((qx - kx) * (qx - kx) + (qy - ky) * (qy - ky));
                    mass += w;
                }
                total += weighted / mass;
            }
            EXPECT_NEAR(distance[static_cast<std::size_t>(layer * 4 + h)], total / n, 1e-4);
        }
    }
}

TEST(PictureAttention, AClickFindsItsPatch)
{
    const io::LoadedModel deit = io::loadModel(folder("deit")); // 32 × 32, patches of 8
    const engine::ImageInput& image = *deit.model->config().image;
    EXPECT_EQ(pictureTokenAt(image, 12, 4), 2 + 1);
    EXPECT_EQ(pictureTokenAt(image, 31.9, 31.9), 2 + 15);
    EXPECT_EQ(pictureTokenAt(image, 32, 3), -1);
    EXPECT_EQ(pictureTokenAt(image, -0.1, 3), -1);
    EXPECT_EQ(pictureTokenAt(image, std::nan(""), 3), -1);
    EXPECT_EQ(pictureTokenName(image, 0), "[CLS]");
    EXPECT_EQ(pictureTokenName(image, 1), "[DIST]");
    EXPECT_EQ(pictureTokenName(image, 2 + 6), "1,2");
    EXPECT_EQ(pictureTokenName(image, 2 + 6), deit.tokenizer->token(2 + 6));
}

TEST(PictureAttention, WhatCannotBeDrawnIsRefusedInOneSentence)
{
    const VitRun r = runOnReference("vit");
    const engine::ModelConfig& c = r.loaded.model->config();
    for (const auto& [layer, head, token] :
         {std::tuple{2, -1, 0}, std::tuple{-1, -1, 0}, std::tuple{0, 2, 0}, std::tuple{0, -2, 0},
          std::tuple{0, 0, 17}, std::tuple{0, 0, -1}}) {
        PictureQuery q;
        q.layer = layer;
        q.head = head;
        q.token = token;
        EXPECT_THROW(pictureAttention(r.trace, c, q), engine::InputError)
            << layer << " " << head << " " << token;
    }
    const auto genesis = test::openModel("genesis");
    EXPECT_THROW(pictureAttention(r.trace, genesis->model->config(), PictureQuery{}),
                 engine::InputError);
}

using ExamplePictures = test::TempFolderTest;

TEST_F(ExamplePictures, TheFirstPictureByNameIsShownFirst)
{
    const std::filesystem::path copy = path("vit");
    std::filesystem::copy(folder("vit"), copy);
    io::LoadedModel loaded = io::loadModel(copy.string());
    EXPECT_EQ(examplePicture(loaded), ""); // no examples folder
    std::filesystem::create_directories(copy / "examples" / "c.png"); // a folder, not a picture
    for (const char* name : {"b.png", "a.JPG", "0.txt"})
        std::ofstream(copy / "examples" / name) << "x";
    EXPECT_EQ(examplePicture(loaded), (copy / "examples" / "a.JPG").string());
    EXPECT_EQ(examplePicture(*test::openModel("genesis")), "");
}

} // namespace
} // namespace attnviz::lesson
