// Every walkthrough source (playground, model block, case) through every lesson step (#9): the
// heatmaps point into the shared trace, the formulas have no unfilled sizes, and the shapes name
// what is shown.
#include "io/attention_case.h"
#include "lesson/case_walkthrough.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "model/model_fixtures.h"

#include <gtest/gtest.h>

namespace attnviz::test {
namespace {

using lesson::kLessonSteps;

std::shared_ptr<const lesson::ModelRun> reverseRun()
{
    return std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(openModel("reverse"), {.text = "attention", .target = "noitnetta"}));
}

std::vector<std::pair<std::string, std::shared_ptr<const lesson::Walkthrough>>> everySource()
{
    lesson::PlaygroundSettings cross;
    cross.keyValueSentences = {"a b c"};
    const auto run = reverseRun();
    const std::string cases = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";
    return {
        {"playground", lesson::computePlayground({})},
        {"playground cross", lesson::computePlayground(cross)},
        {"model self", lesson::walkthroughForBlock(run, {0, engine::Block::Self, -1})},
        {"model masked_self", lesson::walkthroughForBlock(run, {1, engine::Block::MaskedSelf, -1})},
        {"model cross", lesson::walkthroughForBlock(run, {1, engine::Block::Cross, -1})},
        {"case batched",
         lesson::computeCase(
             io::loadAttentionCase(io::SafetensorsFile::read(cases + "batched.case.safetensors")),
             "batched")},
        {"case cross",
         lesson::computeCase(io::loadAttentionCase(io::SafetensorsFile::read(
                                 cases + "cross_attention.case.safetensors")),
                             "cross")},
    };
}

TEST(WalkthroughSources, EveryStepOfEverySourceShowsTheTrace)
{
    for (const auto& [name, w] : everySource()) {
        for (const lesson::LessonStep& step : kLessonSteps) {
            const std::string where = name + " / " + std::string(step.key);
            if (!step.shownFor(*w->trace)) {
                // a stage this module lacks (rotary positions, a score bias) shows nothing
                EXPECT_TRUE(lesson::stepHeatmaps(step, w, 0).empty()) << where;
                continue;
            }
            const std::size_t alternatives = step.alternatives ? step.views.size() : 1;
            for (std::size_t a = 0; a < alternatives; ++a) {
                const auto maps = lesson::stepHeatmaps(step, w, w->batch() - 1, a);
                ASSERT_FALSE(maps.empty()) << where;
                if (step.perHead()) {
                    EXPECT_EQ(static_cast<int>(maps.size()), w->heads()) << where;
                }
                for (const lesson::Heatmap& m : maps) {
                    EXPECT_GT(m.rows(), 0) << where;
                    EXPECT_EQ(static_cast<int>(m.matrix.rowLabels.size()), m.rows()) << where;
                    EXPECT_EQ(static_cast<int>(m.matrix.columnLabels.size()), m.cols()) << where;
                }
                if (!step.views.empty()) {
                    // The first heatmap is the trace's own memory, not a copy.
                    const engine::AttentionStep shown = step.views[step.alternatives ? a : 0].step;
                    const engine::Tensor& t = w->trace->step(shown);
                    const float* start = engine::stepInfo(shown).perHead
                        ? t.matrix({w->batch() - 1, 0}).data()
                        : t.matrix({w->batch() - 1}).data();
                    EXPECT_EQ(maps.front().matrix.values, start) << where;
                }
            }
            const std::string formula = lesson::stepFormula(
                step, *w, "{B} {H} {Hlast} {Nq} {Nk} {D} {dk} {dv} {Hdk} {Hdv} {Po}");
            EXPECT_EQ(formula.find('{'), std::string::npos) << where << ": " << formula;
            EXPECT_FALSE(lesson::stepShapes(step, *w).empty()) << where;
        }
    }
}

TEST(WalkthroughSources, CrossAttentionIsAFieldNotAGuess)
{
    for (const auto& [name, w] : everySource())
        EXPECT_EQ(w->crossAttention, name.find("cross") != std::string::npos) << name;
}

TEST(WalkthroughSources, ModelBlockSharesTheRunsTraceAndItsWeights)
{
    const auto run = reverseRun();
    const auto w = lesson::walkthroughForBlock(run, {1, engine::Block::Cross, -1});
    EXPECT_EQ(w->trace.get(), &run->trace->attentionBlock(1, engine::Block::Cross)->attention);
    EXPECT_EQ(w->weights(),
              &run->model->model->attentionModule(1, engine::Block::Cross)->weights());
    EXPECT_EQ(w->keyValueInput.get(), &run->trace->encoder->output);
    EXPECT_EQ(w->queryTokens[0].front(), "<s>");
    EXPECT_EQ(w->keyTokens[0].size(), 9u);
}

TEST(WalkthroughSources, ALayerTheRunDidNotKeepIsRecomputedExactly)
{
    const auto model = openModel("genesis");
    const auto full = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(model, {.text = "and god said let there be light"}));
    const auto lean = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(model, {.text = "and god said let there be light"},
                               engine::CapturePolicy::attentionWeights()));
    ASSERT_FALSE(lean->trace->decoder->layers[1].complete);
    EXPECT_FALSE(lean->trace->attentionBlock(1, engine::Block::MaskedSelf)
                     ->attention.has(engine::AttentionStep::Scores));
    const auto a = lesson::walkthroughForBlock(full, {1, engine::Block::MaskedSelf, -1});
    const auto b = lesson::walkthroughForBlock(lean, {1, engine::Block::MaskedSelf, -1});
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable) {
        const engine::Tensor& x = a->trace->step(info.step);
        const engine::Tensor& y = b->trace->step(info.step);
        ASSERT_EQ(x.shape(), y.shape()) << info.name;
        EXPECT_TRUE(std::equal(x.values().begin(), x.values().end(), y.values().begin()))
            << info.name;
    }
    // Asking for the weights alone uses what the lean run kept, without recomputing.
    const auto weightsOnly =
        lesson::walkthroughForBlock(lean, {1, engine::Block::MaskedSelf, -1},
                                    engine::AttentionKeep::only({engine::AttentionStep::Weights}));
    EXPECT_EQ(weightsOnly->trace.get(),
              &lean->trace->attentionBlock(1, engine::Block::MaskedSelf)->attention);
}

} // namespace
} // namespace attnviz::test

namespace attnviz::test {
namespace {

TEST(WalkthroughSources, SharedKeyValueHeadsBelongToTheirGroupNotToOneQueryHead)
{
    lesson::PlaygroundSettings s;
    s.modelWidth = 32;
    s.heads = 4;
    s.keyValueHeads = 2;
    const auto w = lesson::computePlayground(s);
    const auto maps =
        lesson::stepHeatmaps(kLessonSteps[*lesson::lessonStepIndex("projections")], w, 0, 0);
    ASSERT_EQ(maps.size(), 3u); // Q, K, V
    EXPECT_EQ(maps[0].columnBands.size(), 4u);
    EXPECT_EQ(maps[0].columnBands[3].sharedBy, 0);
    for (const std::size_t kv : {1u, 2u}) {
        ASSERT_EQ(maps[kv].columnBands.size(), 2u);
        EXPECT_EQ(maps[kv].columnBands[1].head, 1);
        EXPECT_EQ(maps[kv].columnBands[1].sharedBy, 2); // read by query heads 2 and 3
    }
    // The split's K/V head maps are framed by no query head (nor switch one off).
    const auto split = lesson::stepHeatmaps(kLessonSteps[*lesson::lessonStepIndex("split")], w, 0,
                                            1); // the K_h view
    ASSERT_EQ(split.size(), 2u);
    for (const lesson::Heatmap& map : split)
        EXPECT_EQ(map.head, -1);
    const auto queries =
        lesson::stepHeatmaps(kLessonSteps[*lesson::lessonStepIndex("split")], w, 0, 0);
    ASSERT_EQ(queries.size(), 4u);
    EXPECT_EQ(queries[3].head, 3);
}

} // namespace
} // namespace attnviz::test
