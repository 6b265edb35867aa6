#include "lesson/mistake_walkthrough.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::lesson {
namespace {

using engine::AttentionMistake;
using engine::AttentionStep;

std::shared_ptr<const Walkthrough> causalPlayground()
{
    PlaygroundSettings s;
    s.mask = MaskKind::Causal;
    return computePlayground(s);
}

// A drawn mask that blocks the whole of row 1 and a few cells elsewhere: every mistake, the
// conventions for fully blocked rows included, shows.
std::shared_ptr<const Walkthrough> fullyMaskedRowPlayground()
{
    PlaygroundSettings s;
    s.mask = MaskKind::Custom;
    for (int j = 0; j < 6; ++j)
        s.blockedCells.insert({1, j});
    s.blockedCells.insert({0, 3});
    s.blockedCells.insert({2, 5});
    s.blockedCells.insert({4, 0});
    return computePlayground(s);
}

TEST(MistakeWalkthrough, EveryMistakeIsAWalkthroughTheViewsCanShowAndChangesTheOutput)
{
    const auto right = fullyMaskedRowPlayground();
    for (const engine::AttentionMistakeInfo& info : engine::kAttentionMistakeTable) {
        SCOPED_TRACE(std::string(info.name));
        const auto made = mistakenWalkthrough(*right, info.mistake);
        const auto& wrong = std::get<std::shared_ptr<const Walkthrough>>(made);
        EXPECT_EQ(wrong->queryTokens, right->queryTokens);
        EXPECT_EQ(wrong->trace->weights.shape(), right->trace->weights.shape());
        EXPECT_GT(largestOutputChange(*right, *wrong), 1e-3);
        const AttentionStep shown = stepShowingMistake(info.mistake);
        const auto maps = stepHeatmaps(lessonStep(*lessonStepShowing(shown)), wrong, 0);
        ASSERT_FALSE(maps.empty());
        EXPECT_EQ(maps.front().rows(), right->trace->queryLength());
    }
}

TEST(MistakeWalkthrough, TheMistakenRowsNoLongerSumToOneWhereTheMistakeSaysSo)
{
    const auto right = causalPlayground();
    const auto rowSum = [](const Walkthrough& w, int i) {
        return w.trace->weights.matrix({0, 0}).row(i).sum();
    };
    const auto after = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::MaskAfterSoftmax));
    // the first query may see only key 0: the weight it had for the other keys is thrown away
    EXPECT_LT(rowSum(*after, 0), 0.99f);
    EXPECT_NEAR(rowSum(*right, 0), 1.0f, 1e-6f);
    const auto columns = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::SoftmaxOverQueries));
    EXPECT_NEAR(columns->trace->weights.matrix({0, 0}).col(0).sum(), 1.0f, 1e-6f);
    EXPECT_GT(rowSum(*columns, 5), 1.01f); // the last query is the only one to see key 5
}

TEST(MistakeWalkthrough, TheInvertedCausalMaskLeavesTheLastQueryNothingToSee)
{
    const auto right = causalPlayground();
    const auto inverted = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::InvertedMask));
    const auto& rows = inverted->trace->fullyMaskedRows;
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.front().query, 5);
    EXPECT_EQ(inverted->trace->weights.matrix({0, 1}).row(5).sum(), 0.0f);
}

TEST(MistakeWalkthrough, AFullyBlockedRowIsEmptyUniformOrNaNByConvention)
{
    const auto right = fullyMaskedRowPlayground();
    const auto row = [](const Walkthrough& w) { return w.trace->weights.matrix({0, 2}).row(1); };
    EXPECT_EQ(row(*right).sum(), 0.0f);
    const auto uniform = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::MaskFilledWithMinus1e9));
    for (int j = 0; j < 6; ++j)
        EXPECT_NEAR(row(*uniform)(j), 1.0f / 6, 1e-6f);
    EXPECT_EQ(uniform->trace->weights.matrix({0, 2}).row(0),
              right->trace->weights.matrix({0, 2}).row(0));
    const auto nan = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::FullyMaskedRowsAsNaN));
    EXPECT_TRUE(std::isnan(row(*nan)(0)));
    EXPECT_TRUE(std::isnan(nan->trace->output.at({0, 1, 0})));
    EXPECT_FALSE(std::isnan(nan->trace->output.at({0, 0, 0})));
    EXPECT_TRUE(std::isinf(largestOutputChange(*right, *nan)));
}

TEST(MistakeWalkthrough, WithoutTheOutputProjectionTheOutputIsTheConcatenation)
{
    PlaygroundSettings s;
    s.outputWidth = 12;
    const auto right = computePlayground(s);
    const auto wrong = std::get<std::shared_ptr<const Walkthrough>>(
        mistakenWalkthrough(*right, AttentionMistake::NoOutputProjection));
    EXPECT_EQ(right->trace->output.dim(2), 12);
    EXPECT_EQ(wrong->trace->output.dim(2), 16);
    EXPECT_EQ(stepShowingMistake(AttentionMistake::NoOutputProjection), AttentionStep::Output);
    EXPECT_EQ(stepShowingMistake(AttentionMistake::SplitTokens), AttentionStep::Weights);
}

} // namespace
} // namespace attnviz::lesson
