// What the app shows of switched-off heads and of learned weights (#12): the before/after
// difference, the head-importance heatmap and the weight matrices.
#include "lesson/ablation_difference.h"
#include "lesson/importance_heatmap.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "model/model_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::test {
namespace {

float largestAbsolute(const engine::Tensor& t)
{
    float largest = 0;
    for (const float v : t.values())
        if (std::isfinite(v))
            largest = std::max(largest, std::abs(v));
    return largest;
}

TEST(AblationDifference, OneModuleAgreesUpToTheContextAndDiffersInTheSwitchedOffColumns)
{
    lesson::PlaygroundSettings s;
    s.mask = lesson::MaskKind::Causal;
    s.ablatedHeads = {1};
    const auto off = lesson::computePlayground(s);
    ASSERT_TRUE(off->intact);
    EXPECT_TRUE(off->intact->trace->ablatedHeads.empty());
    const auto shown = lesson::ablationDifference(*off);
    ASSERT_TRUE(shown);
    EXPECT_TRUE(shown->difference);
    const engine::AttentionTrace& d = *shown->trace;
    for (const engine::AttentionStep step :
         {engine::AttentionStep::QProj, engine::AttentionStep::Scores,
          engine::AttentionStep::Weights, engine::AttentionStep::Context})
        EXPECT_EQ(largestAbsolute(d.step(step)), 0.0f) << engine::stepName(step);
    // Blocked cells stay blocked (−∞), never NaN.
    EXPECT_EQ(d.masked.at({0, 0, 0, 5}), -std::numeric_limits<float>::infinity());
    const int dv = off->dv();
    const auto concat = d.concat.matrix({0});
    const auto before = off->intact->trace->concat.matrix({0});
    EXPECT_EQ(concat.leftCols(dv).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_TRUE(concat.middleCols(dv, dv).isApprox(-before.middleCols(dv, dv)));
    EXPECT_EQ(concat.rightCols(2 * dv).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_GT(largestAbsolute(d.output), 0.0f);

    const auto maps =
        lesson::stepHeatmaps(lesson::kLessonSteps[*lesson::lessonStepIndex("softmax")], shown, 0);
    EXPECT_EQ(maps[0].scale, lesson::ColourScale::Diverging) << "a change of weight is signed";
    EXPECT_EQ(maps[0].caption.rfind("Δ ", 0), 0u) << maps[0].caption;
}

TEST(AblationDifference, NothingToCompareWithEveryHeadOn)
{
    EXPECT_FALSE(lesson::computePlayground({})->intact);
    EXPECT_FALSE(lesson::ablationDifference(*lesson::computePlayground({})));
}

TEST(AblationDifference, AModelRunComparesTheSameTokensAndLaterLayersChange)
{
    lesson::RunRequest request{.text = "attention", .target = "noitnetta"};
    request.ablation.heads = {{0, engine::Block::Self, 0}};
    request.compareWithIntact = true;
    const auto run = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(openModel("reverse"), request));
    ASSERT_TRUE(run->intact);
    const auto plain =
        lesson::runModelOnText(openModel("reverse"), {.text = "attention", .target = "noitnetta"});
    EXPECT_EQ(run->intact->trace->logits.values().size(), plain.trace->logits.values().size());
    EXPECT_TRUE(std::equal(plain.trace->logits.values().begin(), plain.trace->logits.values().end(),
                           run->intact->trace->logits.values().begin()))
        << "the intact twin is the run with every head on";

    // The block with the head off agrees up to its context; the next layer's scores differ.
    const auto first = lesson::walkthroughForBlock(run, {0, engine::Block::Self, -1});
    const auto firstChange = lesson::ablationDifference(*first);
    ASSERT_TRUE(firstChange);
    EXPECT_EQ(largestAbsolute(firstChange->trace->context), 0.0f);
    EXPECT_GT(largestAbsolute(firstChange->trace->output), 0.0f);
    const auto later = lesson::walkthroughForBlock(run, {1, engine::Block::Self, -1});
    const auto laterChange = lesson::ablationDifference(*later);
    ASSERT_TRUE(laterChange);
    EXPECT_GT(largestAbsolute(laterChange->trace->scores), 0.0f);

    request.compareWithIntact = false;
    EXPECT_FALSE(lesson::runModelOnText(openModel("reverse"), request).intact)
        << "the CLI's ablated traces do not pay for a second pass";
}

TEST(ImportanceHeatmap, OneLayersByHeadsMapPerKindOfBlock)
{
    lesson::ImportanceReport r;
    r.heads = {{{0, engine::Block::Self, 0}, 0.5, 0.25},
               {{0, engine::Block::Self, 1}, 0.7, 0.05},
               {{1, engine::Block::Self, 1}, 0.2, -0.1},
               {{0, engine::Block::Cross, 0}, 0.1, 0.6}};
    const auto maps = lesson::importanceHeatmaps(r, 2);
    ASSERT_EQ(maps.size(), 2u);
    EXPECT_EQ(maps[0].block, engine::Block::Self);
    const lesson::Heatmap& self = maps[0].heatmap;
    EXPECT_EQ(self.rows(), 2);
    EXPECT_EQ(self.cols(), 2);
    EXPECT_FLOAT_EQ(self.value(0, 0), 0.25f);
    EXPECT_FLOAT_EQ(self.value(0, 1), 0.05f);
    EXPECT_FLOAT_EQ(self.value(1, 1), -0.1f);
    EXPECT_EQ(self.matrix.rowLabels[1], "layer 1");
    EXPECT_EQ(self.matrix.columnLabels[0], "head 0");
    EXPECT_EQ(maps[1].block, engine::Block::Cross);
    EXPECT_EQ(maps[1].heatmap.rows(), 1);
    EXPECT_FLOAT_EQ(maps[1].heatmap.value(0, 0), 0.6f);
}

TEST(WeightHeatmaps, TheProjectionStepShowsTheTransposesAndTheOutputStepWo)
{
    lesson::PlaygroundSettings s;
    s.modelWidth = 12;
    s.heads = 3;
    s.outputWidth = 5;
    const auto w = lesson::computePlayground(s);
    const auto projections = lesson::weightHeatmaps(lesson::kLessonSteps[1], *w);
    ASSERT_EQ(projections.size(), 3u);
    const lesson::Heatmap& q = projections[0];
    EXPECT_EQ(q.caption, "W_qᵀ (D × H·d_k = 12 × 12)");
    EXPECT_EQ(q.value(2, 7), w->weights()->wQ(7, 2));
    ASSERT_EQ(q.columnBands.size(), 3u);
    EXPECT_EQ(q.columnBands[2].first, 8);
    const auto output =
        lesson::weightHeatmaps(lesson::kLessonSteps[*lesson::lessonStepIndex("output")], *w);
    ASSERT_EQ(output.size(), 1u);
    EXPECT_EQ(output[0].caption, "W_o (Po × H·d_v = 5 × 12)");
    EXPECT_EQ(output[0].value(4, 11), w->weights()->wO(4, 11));
    EXPECT_TRUE(
        lesson::weightHeatmaps(lesson::kLessonSteps[*lesson::lessonStepIndex("softmax")], *w)
            .empty());
}

TEST(FirstExamples, KeepsTheFirstAndSaysSo)
{
    lesson::EvaluationSet data{{"a", "b", "c"}, {"x", "y", "z"}, "3 held-out examples"};
    const auto two = lesson::firstExamples(data, 2);
    EXPECT_EQ(two.inputs, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(two.answers, (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(two.description, "the first 2 of 3 held-out examples");
    EXPECT_EQ(lesson::firstExamples(data, 9).description, "3 held-out examples");
}

} // namespace
} // namespace attnviz::test
