// #25.5: the attention-sink map reads the run's own weights: each cell is the share of a head's
// weight on the first token, averaged over the queries that see more than it, layers × heads
// per self-attention block; cross-attention has none.
#include "lesson/attention_sinks.h"
#include "lesson/model_run.h"
#include "model/model_fixtures.h"

#include <gtest/gtest.h>

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
    EXPECT_NEAR(map.heatmap.matrix.values[static_cast<std::size_t>(1 * map.heatmap.matrix.cols + 2)],
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

} // namespace
} // namespace attnviz::test
