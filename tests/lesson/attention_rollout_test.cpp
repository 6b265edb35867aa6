// Attention rollout (#26): the C++ rollout of the demo models' PyTorch reference weights equals
// tools/make_rollout_references.py's float64 one for every head fusion and discard ratio, and the
// rollout of the engine's own run equals it within 1e-4. Rows (not columns, vit-explain's issue
// #16) sum to 1; discarding everything leaves the identity; what cannot be rolled out is refused.
#include "engine/input_error.h"
#include "lesson/attention_rollout.h"
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"

#include "io/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

namespace attnviz::test {
namespace {

io::SafetensorsFile rolloutReference(const std::string& model)
{
    return io::SafetensorsFile::read(
        (std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "rollout" / (model + ".safetensors"))
            .string());
}

double largestDifference(const Eigen::MatrixXd& a, const engine::Tensor& b)
{
    double largest = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            largest = std::max(largest, std::abs(a(i, j) - b.at({i, j})));
    return largest;
}

std::string ratioName(double r)
{
    char text[16];
    std::snprintf(text, sizeof text, "%g", r);
    return text;
}

class RolloutReference : public ::testing::TestWithParam<std::string> { };

TEST_P(RolloutReference, EqualsTheFloat64DefinitionForEveryFusionAndRatio)
{
    const auto weights = io::SafetensorsFile::read(referenceFile(GetParam()));
    const auto reference = rolloutReference(GetParam());
    const std::string block = reference.metadata().find("block")->asString();
    const int layers = std::stoi(reference.metadata().find("layers")->asString());
    const int cases = std::stoi(reference.metadata().find("cases")->asString());
    for (int c = 0; c < cases; ++c) {
        std::vector<engine::Tensor> stack;
        for (int L = 0; L < layers; ++L)
            stack.push_back(tensorFrom(weights,
                                       "case" + std::to_string(c) + ".layer" + std::to_string(L) +
                                           "." + block + ".weights"));
        std::vector<const engine::Tensor*> pointers;
        for (const engine::Tensor& t : stack)
            pointers.push_back(&t);
        for (const lesson::HeadFusionInfo& fusion : lesson::kHeadFusions)
            for (const double ratio : {0.0, 0.3, 1.0}) {
                const std::string name = "case" + std::to_string(c) + "." +
                    std::string(fusion.name) + "." + ratioName(ratio);
                const Eigen::MatrixXd ours =
                    lesson::attentionRollout(pointers, {fusion.fusion, ratio});
                EXPECT_LT(largestDifference(ours, tensorFrom(reference, name)), 1e-6) << name;
                for (Eigen::Index i = 0; i < ours.rows(); ++i)
                    EXPECT_NEAR(ours.row(i).sum(), 1.0, 1e-12) << name << " row " << i;
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, RolloutReference,
                         ::testing::Values("genesis", "reverse", "encoder_only", "modern"),
                         [](const auto& param) { return param.param; });

TEST(Rollout, TheEnginesOwnRunRollsOutAsPyTorchsWeightsDo)
{
    for (const std::string model : {"genesis", "modern"}) {
        const auto loaded = openModel(model);
        const auto weights = io::SafetensorsFile::read(referenceFile(model));
        const auto reference = rolloutReference(model);
        std::vector<int> ids;
        if (model == "modern") {
            const io::JsonValue list =
                io::parseJson(weights.metadata().find("case0.ids")->asString());
            for (const io::JsonValue& v : list.asArray())
                ids.push_back(static_cast<int>(v.asInteger()));
        } else {
            const io::JsonValue tokens =
                io::parseJson(weights.metadata().find("case0.target")->asString());
            for (const io::JsonValue& t : tokens.asArray())
                ids.push_back(*loaded->tokenizer->id(t.asString()));
        }
        const engine::ModelTrace trace = loaded->model->forward({}, ids);
        const engine::Block block = lesson::firstAttentionStack(loaded->model->config());
        EXPECT_EQ(block, engine::Block::MaskedSelf);
        for (const lesson::HeadFusionInfo& fusion : lesson::kHeadFusions) {
            const Eigen::MatrixXd ours =
                lesson::attentionRollout(trace, block, {fusion.fusion, 0.3});
            EXPECT_LT(
                largestDifference(
                    ours, tensorFrom(reference, "case0." + std::string(fusion.name) + ".0.3")),
                1e-4)
                << model << " " << fusion.name;
        }
    }
}

TEST(Rollout, RowsAreNormalisedNotColumns)
{
    // One layer, one head, two tokens: A = [[1, 0], [0.5, 0.5]].
    engine::Tensor a({{"batch", 1}, {"head", 1}, {"query", 2}, {"key", 2}});
    a.matrix({0, 0}) << 1, 0, 0.5, 0.5;
    const Eigen::MatrixXd r = lesson::attentionRollout(std::vector<const engine::Tensor*>{&a});
    // ½ (A + I) = [[1, 0], [0.25, 0.75]]: its rows already sum to 1.
    EXPECT_DOUBLE_EQ(r(0, 0), 1.0);
    EXPECT_DOUBLE_EQ(r(0, 1), 0.0);
    EXPECT_DOUBLE_EQ(r(1, 0), 0.25);
    EXPECT_DOUBLE_EQ(r(1, 1), 0.75);
    // Two layers: the product, later layer on the left.
    engine::Tensor b({{"batch", 1}, {"head", 1}, {"query", 2}, {"key", 2}});
    b.matrix({0, 0}) << 1, 0, 0, 1;
    const Eigen::MatrixXd two =
        lesson::attentionRollout(std::vector<const engine::Tensor*>{&a, &b});
    EXPECT_DOUBLE_EQ(two(1, 0), 0.25);
}

TEST(Rollout, DiscardingEveryOffDiagonalEntryLeavesTheIdentity)
{
    const auto loaded = openModel("genesis");
    const engine::ModelTrace trace =
        loaded->model->forward({}, loaded->tokenizer->encode("and god said"));
    const Eigen::MatrixXd r =
        lesson::attentionRollout(trace, engine::Block::MaskedSelf, {lesson::HeadFusion::Max, 1.0});
    EXPECT_TRUE(r.isApprox(Eigen::MatrixXd::Identity(r.rows(), r.cols()), 1e-15));
}

TEST(Rollout, WhatCannotBeRolledOutIsRefused)
{
    const auto loaded = openModel("reverse");
    const engine::ModelTrace trace =
        loaded->model->forward(loaded->tokenizer->encode("abc"), {*loaded->tokenizer->id("<s>")});
    for (const double bad : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()})
        EXPECT_THROW(
            lesson::attentionRollout(trace, engine::Block::Self, {lesson::HeadFusion::Mean, bad}),
            engine::InputError);
    EXPECT_THROW(lesson::attentionRollout(trace, engine::Block::Cross), engine::InputError);
    EXPECT_EQ(lesson::firstAttentionStack(loaded->model->config()), engine::Block::Self);
    EXPECT_NO_THROW(lesson::attentionRollout(trace, engine::Block::Self));
    EXPECT_EQ(lesson::headFusionFromName("max"), lesson::HeadFusion::Max);
    EXPECT_FALSE(lesson::headFusionFromName("median"));
}

} // namespace
} // namespace attnviz::test
