#include "lesson/cell_arithmetic.h"
#include "lesson/model_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"
#include "model/model_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;
using ::testing::HasSubstr;

// Every cell of every head of a walkthrough against its trace: the products sum to the score
// from the queries and keys the scores stage read (normalised and turned, the K/V head of the
// group), the score times the module's own scale is the scaled score, the cap and the bias give
// the capped and biased ones, and each weight (and the sink's) is its exp over the row sum.
// Returns the number of score cells checked.
int expectEveryCellIsTheTraces(const Walkthrough& w, const std::string& label)
{
    const engine::AttentionTrace& t = *w.trace;
    const auto near = [](double a, double b, double scale) {
        return std::abs(a - b) <= 2e-5 * (1 + std::abs(scale));
    };
    int cells = 0, failures = 0;
    for (int b = 0; b < t.batchSize() && failures < 5; ++b)
        for (int h = 0; h < t.numHeads() && failures < 5; ++h)
            for (int i = 0; i < t.queryLength() && failures < 5; ++i) {
                for (int j = 0; j < t.keyLength(); ++j) {
                    const CellAddress c{b, h, i, j};
                    const CellArithmetic any = cellArithmetic(w, AttentionStep::Weights, c);
                    const auto* a = std::get_if<ScoreCellArithmetic>(&any);
                    if (!a) {
                        ADD_FAILURE()
                            << label << ": " << std::get<CellArithmeticUnavailable>(any).reason;
                        return cells;
                    }
                    const std::string at = label + ", batch " + std::to_string(b) + " head " +
                        std::to_string(h) + " cell (" + std::to_string(i) + ", " +
                        std::to_string(j) + ")";
                    double magnitude = 0;
                    for (const double p : a->products)
                        magnitude += std::abs(p);
                    bool ok = near(a->productSum, a->score, magnitude);
                    EXPECT_TRUE(ok)
                        << at << ": Σ products " << a->productSum << ", score " << a->score;
                    ok &= near(a->score * a->scale, a->scaled, a->scaled);
                    EXPECT_NEAR(a->score * a->scale, a->scaled, 2e-5 * (1 + std::abs(a->scaled)))
                        << at;
                    float before = a->scaled;
                    if (t.description.logitSoftCap) {
                        EXPECT_TRUE(a->cap.has_value()) << at;
                        EXPECT_NEAR(*a->cap * std::tanh(before / *a->cap), a->capped, 2e-5) << at;
                        before = a->capped;
                    }
                    if (t.description.scoreBias) {
                        EXPECT_TRUE(a->bias.has_value()) << at;
                        EXPECT_NEAR(before + *a->bias, a->biased, 2e-5 * (1 + std::abs(a->biased)))
                            << at;
                        before = a->biased;
                    }
                    EXPECT_EQ(a->blocked, std::isinf(t.masked.at({b, h, i, j}))) << at;
                    if (!a->blocked) {
                        EXPECT_EQ(t.masked.at({b, h, i, j}), before) << at;
                    }
                    const double weight = a->expSum > 0 ? a->exps[j] / a->expSum : 0.0;
                    ok &= std::abs(weight - a->weight) <= 2e-6;
                    EXPECT_NEAR(weight, a->weight, 2e-6) << at;
                    if (a->sink) {
                        EXPECT_NEAR(a->sinkExp / a->expSum, a->sinkWeight, 2e-6) << at;
                    }
                    failures += ok ? 0 : 1;
                    ++cells;
                }
                for (int v = 0; v < t.valueSize(); ++v) {
                    const auto a = std::get<ContextCellArithmetic>(
                        cellArithmetic(w, AttentionStep::Context, {b, h, i, v}));
                    EXPECT_NEAR(a.productSum, a.context, 2e-5 * (1 + std::abs(a.context)))
                        << label << ", context of head " << h << " (" << i << ", " << v << ")";
                }
            }
    return cells;
}

TEST(CellArithmetic, EveryCellOfEveryHeadOfEveryBundledModelIsTheTraces)
{
    const std::string examples = std::string(ATTNVIZ_SOURCE_MODELS_DIR) + "/shapes/examples/";
    const std::pair<const char*, RunRequest> runs[] = {
        {"reverse", {.text = "attention", .target = "noitnetta"}},
        {"genesis", {.text = "and god said, let there be light"}},
        {"induction", {.text = "in the beginning in the beginning"}},
        {"modern", {.text = "In the beginning God created the heaven and the earth."}},
        {"shapes", {.image = examples + "ring.png"}},
    };
    for (const auto& [name, request] : runs) {
        const auto run =
            std::make_shared<const ModelRun>(runModelOnText(test::openModel(name), request));
        int cells = 0;
        for (int layer = 0; layer < run->trace->layerCount(); ++layer)
            for (const engine::Block block :
                 {engine::Block::Self, engine::Block::MaskedSelf, engine::Block::Cross}) {
                if (!run->trace->attentionBlock(layer, block))
                    continue;
                cells += expectEveryCellIsTheTraces(*walkthroughForBlock(run, {layer, block}),
                                                    std::string(name) + " layer " +
                                                        std::to_string(layer) + " " +
                                                        std::string(engine::blockName(block)));
            }
        EXPECT_GT(cells, 100) << name;
    }
}

TEST(CellArithmetic, EveryCellOfThePlaygroundsTreatmentsIsTheTraces)
{
    struct Variant {
        const char* label;
        void (*edit)(PlaygroundSettings&);
    };
    const Variant variants[] = {
        {"rotary, 2 K/V heads",
         [](PlaygroundSettings& s) {
             s.positions = PositionKind::Rotary;
             s.keyValueHeads = 2;
         }},
        {"rotary on 2 of 4 features, 1 K/V head",
         [](PlaygroundSettings& s) {
             s.positions = PositionKind::Rotary;
             s.rotaryDim = 2;
             s.keyValueHeads = 1;
         }},
        {"QK-norm per head, causal window 3",
         [](PlaygroundSettings& s) {
             s.queryKeyNorm = QueryKeyNormKind::PerHead;
             s.mask = MaskKind::Causal;
             s.slidingWindow = 3;
         }},
        {"QK-norm of the whole projection, (1 + w), rotary",
         [](PlaygroundSettings& s) {
             s.queryKeyNorm = QueryKeyNormKind::WholeProjection;
             s.queryKeyNormUnitOffset = true;
             s.positions = PositionKind::Rotary;
             s.keyValueHeads = 2;
         }},
        {"a scale of 0.7 and a cap of 1.5",
         [](PlaygroundSettings& s) {
             s.scoreScale = 0.7;
             s.softCap = 1.5;
         }},
        {"learned sinks, causal",
         [](PlaygroundSettings& s) {
             s.learnedSinks = true;
             s.mask = MaskKind::Causal;
         }},
        {"ALiBi, causal",
         [](PlaygroundSettings& s) {
             s.positions = PositionKind::Alibi;
             s.mask = MaskKind::Causal;
         }},
        {"everything, a batch of two",
         [](PlaygroundSettings& s) {
             s.querySentences = {"the cat sat on the mat", "a dog ran"};
             s.positions = PositionKind::Rotary;
             s.rotaryDim = 2;
             s.keyValueHeads = 2;
             s.queryKeyNorm = QueryKeyNormKind::PerHead;
             s.scoreScale = 0.4;
             s.softCap = 3;
             s.learnedSinks = true;
             s.mask = MaskKind::Causal;
             s.slidingWindow = 4;
         }},
    };
    for (const Variant& v : variants) {
        PlaygroundSettings s;
        s.modelWidth = 16;
        s.heads = 4;
        v.edit(s);
        ASSERT_TRUE(checkSettings(s).empty()) << v.label << ": " << checkSettings(s)[0].message;
        EXPECT_GT(expectEveryCellIsTheTraces(*computePlayground(s), v.label), 20) << v.label;
    }
}

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
                    EXPECT_NEAR(a.score * a.scale, a.scaled, 1e-6 * (1 + std::abs(a.scaled)));
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
