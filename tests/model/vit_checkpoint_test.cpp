// Vision Transformer folders (#26) against PyTorch: tools/make_vit_references.py writes tiny
// random ViT and DeiT checkpoints in Hugging Face's layouts (with and without the prefix, with
// and without q/k/v biases, a classifier, DeiT's distillation token and teacher head, a pooler
// to ignore, a rectangular one-channel picture) and every activation of a float64 pass written
// from the published description. The engine's pass over the same pixels matches each within
// 1e-4, the logits included; the patches are named "row,column".
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include "engine/input_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>

namespace attnviz::test {
namespace {

std::string folder(const std::string& name)
{
    return (std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "hf" / name).string();
}

class VitCheckpoint : public ::testing::TestWithParam<std::string> { };

TEST_P(VitCheckpoint, EveryActivationMatchesPyTorch)
{
    const io::LoadedModel loaded = io::loadModel(folder(GetParam()));
    const auto reference = io::SafetensorsFile::read(folder(GetParam()) + "/reference.safetensors");
    engine::ModelInput input;
    input.pixels = tensorFrom(reference, "pixels");
    const engine::ModelTrace trace = loaded.model->forward(input);
    std::set<std::string> expected, traced;
    for (const io::TensorEntry& t : reference.tensors())
        expected.insert(t.name);
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& tensor) {
        traced.insert(name);
        if (reference.find(name)) {
            EXPECT_TRUE(tensorsNear(tensor, tensorFrom(reference, name), 1e-4, 1e-4)) << name;
        }
    });
    EXPECT_EQ(traced, expected);
    const engine::ImageInput& image = *loaded.model->config().image;
    EXPECT_EQ(trace.sourceIds.size(), static_cast<std::size_t>(image.tokens()));
    EXPECT_EQ(loaded.tokenizer->token(0), "[CLS]");
    EXPECT_EQ(loaded.tokenizer->token(image.extraTokens() + image.patchColumns() + 1), "1,1");
    EXPECT_EQ(loaded.tokenizer->id("1,1"), image.extraTokens() + image.patchColumns() + 1);
}

INSTANTIATE_TEST_SUITE_P(Folders, VitCheckpoint, ::testing::Values("vit", "vit-model", "deit"),
                         [](const auto& param) {
                             std::string n = param.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

TEST(VitCheckpoint, TheConfigurationIsReadAsTheFamilyWritesIt)
{
    const io::LoadedModel deit = io::loadModel(folder("deit"));
    const engine::ImageInput& d = *deit.model->config().image;
    EXPECT_TRUE(d.distillationToken);
    EXPECT_TRUE(d.teacherHead);
    EXPECT_EQ(d.classes, 5);
    EXPECT_EQ(d.labels[2], "triangle");
    EXPECT_EQ(d.tokens(), 16 + 2);
    EXPECT_EQ(deit.tokenizer->token(1), "[DIST]");
    const io::LoadedModel plain = io::loadModel(folder("vit-model"));
    const engine::ImageInput& v = *plain.model->config().image;
    EXPECT_EQ(v.height, 24);
    EXPECT_EQ(v.width, 16);
    EXPECT_EQ(v.channels, 1);
    EXPECT_EQ(v.classes, 0);
    EXPECT_EQ(v.patchRows(), 6);
    EXPECT_EQ(v.patchColumns(), 4);
    EXPECT_FALSE(plain.model->config().hasAttentionBias());
}

TEST(VitCheckpoint, APictureOfTheWrongShapeOrTextIsRefusedInOneSentence)
{
    const io::LoadedModel loaded = io::loadModel(folder("vit"));
    engine::ModelInput wrong;
    wrong.pixels = engine::Tensor({{"channel", 3}, {"height", 16}, {"width", 32}});
    EXPECT_THAT([&] { loaded.model->forward(wrong); },
                ::testing::ThrowsMessage<engine::InputError>(
                    ::testing::HasSubstr("this model reads [3, 32, 32]")));
    EXPECT_THROW(loaded.model->forward(std::vector<int>{0, 1}, std::vector<int>{}),
                 engine::InputError);
    EXPECT_THROW(loaded.tokenizer->encode("a cat"), engine::InputError);
    engine::ModelInput infinite;
    infinite.pixels = engine::Tensor({{"channel", 3}, {"height", 32}, {"width", 32}});
    infinite.pixels.values()[5] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(loaded.model->forward(infinite), std::exception);
    // A text model refuses a picture.
    engine::ModelInput picture;
    picture.pixels = engine::Tensor({{"channel", 3}, {"height", 32}, {"width", 32}});
    picture.target = {1, 2};
    EXPECT_THROW(openModel("genesis")->model->forward(picture), engine::InputError);
}

} // namespace
} // namespace attnviz::test
