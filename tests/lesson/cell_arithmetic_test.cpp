#include "lesson/cell_arithmetic.h"
#include "lesson/playground.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;
using ::testing::HasSubstr;

// Two sentences of different lengths (so the shorter one is padded) under a causal mask: blocked
// cells of both kinds, and d_k = 8 so the products have something to add up.
std::shared_ptr<const Walkthrough> paddedCausalWalkthrough()
{
    PlaygroundSettings s;
    s.querySentences = {"the cat sat on the mat", "a dog ran"};
    s.modelWidth = 16;
    s.heads = 2;
    s.mask = MaskKind::Causal;
    return computePlayground(s);
}

float traceValue(const Walkthrough& w, AttentionStep step, const CellAddress& c)
{
    return w.trace->step(step).at({c.batch, c.head, c.query, c.column});
}

TEST(CellArithmetic, EveryScoreCellIsTheSumOfItsProductsAndEveryWeightItsExpOverTheRowSum)
{
    const auto w = paddedCausalWalkthrough();
    const auto& t = *w->trace;
    int blockedSeen = 0;
    for (int b = 0; b < t.batchSize(); ++b)
        for (int h = 0; h < t.numHeads(); ++h)
            for (int i = 0; i < t.queryLength(); ++i)
                for (int j = 0; j < t.keyLength(); ++j) {
                    const CellAddress c{b, h, i, j};
                    const auto a = std::get<ScoreCellArithmetic>(
                        cellArithmetic(*w, AttentionStep::Weights, c));
                    ASSERT_EQ(a.products.size(), 8u);
                    EXPECT_NEAR(a.productSum, traceValue(*w, AttentionStep::Scores, c),
                                1e-5 * (1 + std::abs(a.productSum)));
                    EXPECT_EQ(a.score, traceValue(*w, AttentionStep::Scores, c));
                    EXPECT_NEAR(a.score / a.divisor, a.scaled, 1e-6 * (1 + std::abs(a.scaled)));
                    EXPECT_EQ(a.blocked,
                              w->trace->masked.at({b, h, i, j}) ==
                                  -std::numeric_limits<float>::infinity());
                    blockedSeen += a.blocked;
                    const double expected = a.blocked ? 0.0 : a.exps[j] / a.expSum;
                    EXPECT_NEAR(expected, a.weight, 1e-6);
                    EXPECT_EQ(a.weight, traceValue(*w, AttentionStep::Weights, c));
                    EXPECT_FALSE(a.rowFullyMasked);
                }
    // causal blocks 15 cells of each 6 × 6 head; padding the 3-token sentence blocks more
    EXPECT_GT(blockedSeen, 2 * 2 * 15);
}

TEST(CellArithmetic, TheRowMaximumIsSubtractedSoTheLargestExpIsOne)
{
    const auto w = paddedCausalWalkthrough();
    const auto a =
        std::get<ScoreCellArithmetic>(cellArithmetic(*w, AttentionStep::Scores, {0, 1, 5, 2}));
    EXPECT_EQ(*std::max_element(a.exps.begin(), a.exps.end()), 1.0);
    EXPECT_EQ(a.rowMax, *std::max_element(a.maskedRow.begin(), a.maskedRow.end()));
    double sum = 0;
    for (float v : a.weightRow)
        sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(CellArithmetic, EveryContextCellIsTheWeightedSumOfItsValueColumn)
{
    const auto w = paddedCausalWalkthrough();
    const auto& t = *w->trace;
    for (int b = 0; b < t.batchSize(); ++b)
        for (int h = 0; h < t.numHeads(); ++h)
            for (int i = 0; i < t.queryLength(); ++i)
                for (int c = 0; c < t.valueSize(); ++c) {
                    const auto a = std::get<ContextCellArithmetic>(
                        cellArithmetic(*w, AttentionStep::Context, {b, h, i, c}));
                    ASSERT_EQ(a.products.size(), static_cast<std::size_t>(t.keyLength()));
                    EXPECT_EQ(a.values[2], t.vHeads.at({b, h, 2, c}));
                    EXPECT_NEAR(a.productSum, a.context, 1e-5 * (1 + std::abs(a.context)));
                }
}

TEST(CellArithmetic, AFullyMaskedRowHasNoExpsAndZeroWeights)
{
    PlaygroundSettings s;
    s.querySentences = {"one two three"};
    s.mask = MaskKind::Custom;
    for (int j = 0; j < 3; ++j)
        s.blockedCells.insert({1, j});
    const auto w = computePlayground(s);
    const auto a =
        std::get<ScoreCellArithmetic>(cellArithmetic(*w, AttentionStep::Masked, {0, 0, 1, 1}));
    EXPECT_TRUE(a.rowFullyMasked);
    EXPECT_TRUE(a.blocked);
    EXPECT_EQ(a.expSum, 0.0);
    EXPECT_EQ(a.weight, 0.0f);
    const auto open =
        std::get<ScoreCellArithmetic>(cellArithmetic(*w, AttentionStep::Masked, {0, 0, 0, 1}));
    EXPECT_FALSE(open.rowFullyMasked);
    EXPECT_GT(open.expSum, 1.0);
}

TEST(CellArithmetic, OtherStepsAndCellsOutsideTheTraceSayWhy)
{
    const auto w = paddedCausalWalkthrough();
    EXPECT_THAT(
        std::get<CellArithmeticUnavailable>(cellArithmetic(*w, AttentionStep::Concat, {0, 0, 0, 0}))
            .reason,
        HasSubstr("this is concat"));
    for (const CellAddress c : {CellAddress{2, 0, 0, 0}, CellAddress{0, 2, 0, 0},
                                CellAddress{0, 0, 6, 0}, CellAddress{0, 0, 0, -1}})
        EXPECT_THAT(
            std::get<CellArithmeticUnavailable>(cellArithmetic(*w, AttentionStep::Weights, c))
                .reason,
            HasSubstr("no such cell"));
    // the context's columns are d_v wide, not key-long
    EXPECT_TRUE(std::holds_alternative<CellArithmeticUnavailable>(
        cellArithmetic(*w, AttentionStep::Context, {0, 0, 0, 8})));
}

TEST(CellArithmetic, LargestEntriesKeepTheCellAskedAbout)
{
    const std::vector<float> row = {0.1f, 0.5f, 0.05f, 0.3f, 0.05f};
    EXPECT_EQ(largestEntries(row, 2, 1), (std::vector<std::size_t>{1, 3}));
    EXPECT_EQ(largestEntries(row, 2, 4), (std::vector<std::size_t>{1, 4}));
    EXPECT_EQ(largestEntries(row, 9, 0), (std::vector<std::size_t>{1, 3, 0, 2, 4}));
}

} // namespace
} // namespace attnviz::lesson
