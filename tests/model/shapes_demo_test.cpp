// The bundled `shapes` demo (tools/shapes_demo.py, resources/models/shapes/README.md): a Vision
// Transformer stored as a Hugging Face ViTForImageClassification folder, trained on pictures its
// script draws itself (one shape on a textured background). The folder is the model its README
// describes; every activation of the engine's pass matches the script's float64 PyTorch pass
// (tools/make_vit_references.py's definitions) within 1e-4; each example picture, decoded and
// prepared by the C++ code, is classified as its file name says; and the CLS row of the
// attention rollout puts more of its weight on the patches the shape covers than their share of
// the picture — as the script measured it.
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include "io/image/decoded_image.h"
#include "io/image/image_preparation.h"
#include "io/input_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "lesson/attention_rollout.h"
#include "lesson/model_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace attnviz::test {
namespace {

const std::vector<std::string> kLabels = {"circle", "square", "triangle", "cross", "ring"};

std::filesystem::path folder()
{
    return modelFolder("shapes");
}

std::string textOf(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// examples/shapes.json: per picture its label, the patches the shape covers (row-major over the
// patch grid) and the shares the script measured.
struct Example {
    std::string file;
    std::string label;
    std::set<int> shapePatches;
    double rolloutShare = 0;
};

std::vector<Example> examples()
{
    const io::JsonValue json =
        io::parseJson(io::readFile((folder() / "examples" / "shapes.json").string()));
    std::vector<Example> out;
    for (const auto& [file, value] : json.find("pictures")->asObject()) {
        Example e;
        e.file = file;
        e.label = value.find("label")->asString();
        for (const io::JsonValue& p : value.find("shape_patches")->asArray())
            e.shapePatches.insert(static_cast<int>(p.asInteger()));
        e.rolloutShare = value.find("rollout_shape_share")->asNumber();
        out.push_back(std::move(e));
    }
    return out;
}

// The label a file name gives: "circle.png", "cross_small.png" -> "circle", "cross".
std::string labelOfName(const std::string& file)
{
    const std::string stem = std::filesystem::path(file).stem().string();
    return stem.substr(0, stem.find('_'));
}

// The share of the CLS row of the rollout, over the patch columns, that falls on `patches`.
double clsShareOn(const Eigen::MatrixXd& rollout, const std::set<int>& patches, int firstPatch)
{
    double on = 0, all = 0;
    for (Eigen::Index k = firstPatch; k < rollout.cols(); ++k) {
        all += rollout(0, k);
        if (patches.count(static_cast<int>(k - firstPatch)))
            on += rollout(0, k);
    }
    return on / all;
}

lesson::ModelRun runOn(const std::shared_ptr<const io::LoadedModel>& model, const std::string& file)
{
    lesson::RunRequest request;
    request.image = (folder() / "examples" / file).string();
    return lesson::runModelOnText(model, request);
}

TEST(ShapesDemo, IsTheModelItsReadmeDescribes)
{
    const auto loaded = openModel("shapes");
    const engine::ModelConfig& c = loaded->model->config();
    ASSERT_TRUE(c.image);
    EXPECT_EQ(c.architecture, engine::Architecture::EncoderOnly);
    EXPECT_EQ(c.encoderLayers, 4);
    EXPECT_EQ(c.numHeads, 4);
    EXPECT_EQ(c.modelWidth, 64);
    EXPECT_EQ(c.feedForwardWidth, 128);
    EXPECT_EQ(c.norm, engine::NormPosition::Pre);
    const engine::ImageInput& image = *c.image;
    EXPECT_EQ(image.height, 48);
    EXPECT_EQ(image.width, 48);
    EXPECT_EQ(image.patchSize, 8);
    EXPECT_EQ(image.channels, 3);
    EXPECT_EQ(image.tokens(), 36 + 1);
    EXPECT_FALSE(image.distillationToken);
    EXPECT_EQ(image.labels, kLabels);
    EXPECT_EQ(loaded->tokenizer->token(0), "[CLS]");

    // The README's sizes and parameter count are the folder's.
    const std::string readme = textOf(folder() / "README.md");
    for (const char* fact : {"48 × 48 RGB", "Patches of 8 × 8 pixels, a 6 × 6 grid",
                             "Width 64, 4 pre-norm layers of 4 heads of size 16, a GELU "
                             "feed-forward block of width 128"})
        EXPECT_NE(readme.find(fact), std::string::npos) << fact;
    std::int64_t parameters = 0;
    const auto weights = io::SafetensorsFile::read((folder() / "model.safetensors").string());
    for (const io::TensorEntry& t : weights.tensors()) {
        EXPECT_EQ(t.dtype, io::DType::F32) << t.name;
        std::int64_t n = 1;
        for (std::int64_t s : t.shape)
            n *= s;
        parameters += n;
    }
    std::string count = std::to_string(parameters);
    for (int k = static_cast<int>(count.size()) - 3; k > 0; k -= 3)
        count.insert(static_cast<std::size_t>(k), ",");
    EXPECT_NE(readme.find(count + " parameters"), std::string::npos) << count;
    EXPECT_LT(std::filesystem::file_size(folder() / "model.safetensors"), 1u << 20);
    // The accuracy it reports is at least 95 %.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(readme, m, std::regex(R"(accuracy\s+\*\*([0-9.]+)%\*\*)")));
    EXPECT_GE(std::stod(m[1].str()), 95.0);
}

TEST(ShapesDemo, EveryActivationMatchesPyTorch)
{
    const auto loaded = openModel("shapes");
    const auto reference = io::SafetensorsFile::read(referenceFile("shapes"));
    const int cases = std::stoi(reference.metadata().find("cases")->asString());
    ASSERT_GE(cases, 2);
    for (int c = 0; c < cases; ++c) {
        const std::string prefix = "case" + std::to_string(c) + ".";
        const std::string image = reference.metadata().find(prefix + "image")->asString();
        SCOPED_TRACE(image);
        // The C++ decoding and preparation of the PNG give the script's pixels.
        const engine::Tensor pixels = tensorFrom(reference, prefix + "pixels");
        const engine::Tensor prepared =
            io::prepareImage(io::readImage((folder() / "examples" / image).string()),
                             io::readImagePreparation(folder(), *loaded->model->config().image),
                             *loaded->model->config().image);
        ASSERT_EQ(prepared.shape(), pixels.shape());
        EXPECT_TRUE(tensorsNear(prepared, pixels, 1e-6, 1e-6));

        engine::ModelInput input;
        input.pixels = pixels;
        const engine::ModelTrace trace = loaded->model->forward(input);
        std::set<std::string> expected, traced;
        for (const io::TensorEntry& t : reference.tensors())
            if (t.name.starts_with(prefix))
                expected.insert(t.name.substr(prefix.size()));
        trace.forEachTensor([&](const std::string& name, const engine::Tensor& tensor) {
            traced.insert(name);
            if (reference.find(prefix + name)) {
                EXPECT_TRUE(tensorsNear(tensor, tensorFrom(reference, prefix + name), 1e-4, 1e-4))
                    << name;
            }
        });
        EXPECT_EQ(traced, expected);
        EXPECT_EQ(labelOfName(image), reference.metadata().find(prefix + "label")->asString());
    }
}

TEST(ShapesDemo, EachExampleIsClassifiedAsItsNameSays)
{
    const auto loaded = openModel("shapes");
    const std::vector<Example> described = examples();
    std::set<std::string> files, labels;
    for (const auto& entry : std::filesystem::directory_iterator(folder() / "examples"))
        if (entry.path().extension() == ".png")
            files.insert(entry.path().filename().string());
    std::set<std::string> listed;
    for (const Example& e : described)
        listed.insert(e.file);
    EXPECT_EQ(files, listed); // every picture described, every description a picture
    for (const std::string& file : files) {
        SCOPED_TRACE(file);
        const lesson::ModelRun run = runOn(loaded, file);
        const engine::Tensor& logits = run.trace->classLogits;
        ASSERT_EQ(logits.shape(), (std::vector<std::int64_t>{1, 5}));
        const auto best = std::max_element(logits.values().begin(), logits.values().end());
        const std::string predicted =
            kLabels[static_cast<std::size_t>(best - logits.values().begin())];
        EXPECT_EQ(predicted, labelOfName(file));
        labels.insert(predicted);
    }
    EXPECT_EQ(labels, std::set<std::string>(kLabels.begin(), kLabels.end()));
    for (const Example& e : described)
        EXPECT_EQ(e.label, labelOfName(e.file));
}

TEST(ShapesDemo, TheClsRowOfTheRolloutFindsTheShape)
{
    const auto loaded = openModel("shapes");
    const engine::ImageInput& image = *loaded->model->config().image;
    for (const Example& e : examples()) {
        SCOPED_TRACE(e.file);
        const lesson::ModelRun run = runOn(loaded, e.file);
        const Eigen::MatrixXd rollout = lesson::attentionRollout(*run.trace, engine::Block::Self);
        ASSERT_EQ(rollout.rows(), image.tokens());
        ASSERT_FALSE(e.shapePatches.empty());
        const double area = static_cast<double>(e.shapePatches.size()) / image.patches();
        const double share = clsShareOn(rollout, e.shapePatches, image.extraTokens());
        // The share the script measured (and its README reports) is the C++ rollout's.
        EXPECT_NEAR(share, e.rolloutShare, 1e-3);
        // At least twice the shape's share of the picture ...
        EXPECT_GT(share, 2 * area) << "area " << area;
        // ... and the patch it takes most from is one of the shape's.
        Eigen::Index top = 0;
        rollout.row(0).tail(image.patches()).maxCoeff(&top);
        EXPECT_TRUE(e.shapePatches.count(static_cast<int>(top))) << "top patch " << top;
    }
}

} // namespace
} // namespace attnviz::test
