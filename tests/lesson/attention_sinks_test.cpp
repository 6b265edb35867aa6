// #25.5: the attention-sink map reads the run's own weights: each cell is the share of a head's
// weight on the first token, averaged over the queries that see more than it, layers × heads
// per self-attention block; cross-attention has none.
#include "lesson/attention_sinks.h"
#include "lesson/model_run.h"
#include "model/model_fixtures.h"

#include "engine/input_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::test {
namespace {

TEST(AttentionSinks, EachCellIsTheHeadsShareOnTheFirstToken)
{
    const lesson::ModelRun run =
        lesson::runModelOnText(openModel("genesis"), {.text = "and god said, let there be light"});
    const std::vector<lesson::AttentionSinkMap> maps = lesson::attentionSinkMaps(*run.trace);
    ASSERT_EQ(maps.size(), 1u);
    const lesson::AttentionSinkMap& map = maps.front();
    EXPECT_EQ(map.block, engine::Block::MaskedSelf);
    ASSERT_EQ(map.heatmap.matrix.rows, run.trace->layerCount());
    const engine::AttentionTrace& layer1 =
        run.trace->attentionBlock(1, engine::Block::MaskedSelf)->attention;
    ASSERT_EQ(map.heatmap.matrix.cols, layer1.numHeads());
    // Head 2 of layer 1 by hand: rows 1 … N − 1 (row 0 sees only key 0).
    const auto w = layer1.weights.matrix({0, 2});
    double sum = 0;
    for (Eigen::Index i = 1; i < w.rows(); ++i)
        sum += w(i, 0) / w.row(i).sum();
    EXPECT_NEAR(
        map.heatmap.matrix.values[static_cast<std::size_t>(1 * map.heatmap.matrix.cols + 2)],
        sum / static_cast<double>(w.rows() - 1), 1e-6);
    double mean = 0;
    for (int c = 0; c < map.heatmap.matrix.rows * map.heatmap.matrix.cols; ++c) {
        const float v = map.heatmap.matrix.values[c];
        EXPECT_GE(v, 0.0f);
        EXPECT_LE(v, 1.0f);
        mean += v;
    }
    EXPECT_NEAR(map.mean, mean / (map.heatmap.matrix.rows * map.heatmap.matrix.cols), 1e-6);
}

TEST(AttentionSinks, AnEncoderDecoderHasOneMapPerSelfAttentionAndNoneForCross)
{
    const lesson::ModelRun run =
        lesson::runModelOnText(openModel("reverse"), {.text = "abcd", .target = "dcba"});
    const std::vector<lesson::AttentionSinkMap> maps = lesson::attentionSinkMaps(*run.trace);
    ASSERT_EQ(maps.size(), 2u);
    EXPECT_EQ(maps[0].block, engine::Block::Self);
    EXPECT_EQ(maps[1].block, engine::Block::MaskedSelf);
}

TEST(AttentionSinks, OneTokenSaysNothing)
{
    const lesson::ModelRun run = lesson::runModelOnText(openModel("genesis"), {.text = "a"});
    EXPECT_TRUE(lesson::attentionSinkMaps(*run.trace).empty());
}

TEST(AttentionSinks, AWindowedLayerCountsOnlyTheRowsThatStillSeeTheFirstToken)
{
    const auto model = openModel("modern"); // layer 0 has a window of 16
    const lesson::ModelRun run = lesson::runModelOnText(
        model,
        {.text = "In the beginning God created the heaven and the earth. And the earth "
                 "was without form, and void; and darkness was upon the face of the deep."});
    const engine::AttentionTrace& layer0 =
        run.trace->attentionBlock(0, engine::Block::MaskedSelf)->attention;
    ASSERT_GT(layer0.queryLength(), 20);
    const lesson::AttentionSinkMap map = lesson::attentionSinkMaps(*run.trace).front();
    for (std::int64_t h = 0; h < layer0.numHeads(); ++h) {
        const auto w = layer0.weights.matrix({0, h});
        double sum = 0;
        for (Eigen::Index i = 1; i < 16; ++i)
            sum += w(i, 0);
        EXPECT_NEAR(map.heatmap.matrix.values[static_cast<std::size_t>(h)], sum / 15, 1e-6) << h;
    }
}

TEST(AttentionSinks, WithoutTheFirstTokenTheSamePredictionsAreComparedByHand)
{
    const auto model = openModel("modern");
    const std::vector<int> ids = model->tokenizer->encode(
        "And God said, Let there be light: and there was light. And God saw the light.");
    const lesson::FirstTokenRemoved r = lesson::withoutFirstToken(*model, ids);
    EXPECT_EQ(r.predictions, static_cast<int>(ids.size()) - 2);
    ASSERT_EQ(r.with.size(), 1u);
    ASSERT_EQ(r.without.size(), 1u);
    // The loss by hand, from passes of the engine's own.
    const std::vector<int> rest(ids.begin() + 1, ids.end());
    const engine::ModelTrace a = model->model->forward({}, ids);
    const engine::ModelTrace b = model->model->forward({}, rest);
    double with = 0, without = 0;
    for (std::size_t k = 1; k + 1 < ids.size(); ++k) {
        const auto ce = [&](const engine::ModelTrace& t, std::size_t row) {
            const auto l = t.logits.matrix({0}).row(static_cast<Eigen::Index>(row)).cast<double>();
            return std::log(l.array().exp().sum()) - l(ids[k + 1]);
        };
        with += ce(a, k);
        without += ce(b, k - 1);
    }
    EXPECT_NEAR(r.lossWith, with / r.predictions, 1e-6);
    EXPECT_NEAR(r.lossWithout, without / r.predictions, 1e-6);
    // Trained always to read "<s>" first, the model predicts the same text worse without it.
    EXPECT_GT(r.lossWithout, r.lossWith);
    EXPECT_GE(r.changedChoices, 0);
    EXPECT_LE(r.changedChoices, r.predictions);
}

TEST(AttentionSinks, RemovingTheFirstTokenNeedsADecoderOnlyModelAndThreeTokens)
{
    const auto refused = [](auto call, const char* words) {
        try {
            call();
            ADD_FAILURE() << "accepted; expected: " << words;
        } catch (const engine::InputError& e) {
            EXPECT_THAT(e.what(), ::testing::HasSubstr(words));
        }
    };
    refused([] { lesson::withoutFirstToken(*openModel("reverse"), {3, 4, 5}); }, "decoder-only");
    refused([] { lesson::withoutFirstToken(*openModel("genesis"), {3, 4}); }, "at least 3");
    refused(
        [] {
            lesson::withoutFirstToken(*openModel("genesis"), {3, 4, 5}, std::uint64_t{10});
        },
        "memory");
}

} // namespace
} // namespace attnviz::test
