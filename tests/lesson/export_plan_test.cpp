// Export planning as a unit (#9): which matrices a selection picks, their names, titles and
// shared colour ranges, and selections that name what does not exist.
#include "engine/input_error.h"
#include "lesson/export_plan.h"
#include "lesson/playground.h"
#include "model/model_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const lesson::ModelRun> reverse()
{
    return std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(openModel("reverse"), {.text = "abc", .target = "cba"}));
}

std::string planError(const lesson::ExportSelection& s,
                      std::shared_ptr<const lesson::ModelRun> run = reverse())
{
    try {
        lesson::planModelExport(std::move(run), s);
    } catch (const engine::InputError& e) {
        return e.what();
    }
    return "(planned)";
}

TEST(ExportPlan, ModelSelectionNamesEveryLayerBlockHeadAndStep)
{
    lesson::ExportSelection s;
    s.layers.add(1, 1);
    s.heads.add(2, 3);
    s.steps = {engine::AttentionStep::Weights, engine::AttentionStep::Concat};
    const auto items = lesson::planModelExport(reverse(), s);
    std::vector<std::string> names;
    for (const auto& i : items)
        names.push_back(i.baseName);
    EXPECT_EQ(names,
              (std::vector<std::string>{"layer1_self_head2_weights", "layer1_self_head3_weights",
                                        "layer1_self_concat", "layer1_masked_self_head2_weights",
                                        "layer1_masked_self_head3_weights",
                                        "layer1_masked_self_concat", "layer1_cross_head2_weights",
                                        "layer1_cross_head3_weights", "layer1_cross_concat"}));
    EXPECT_EQ(items.front().heatmap.title, "reverse · layer 1 · self · head 2 · weights");
}

TEST(ExportPlan, EveryMatrixOfAStepSharesOneRange)
{
    lesson::ExportSelection s;
    s.steps = {engine::AttentionStep::Scores};
    const auto items = lesson::planModelExport(reverse(), s);
    ASSERT_GT(items.size(), 4u);
    std::vector<lesson::Heatmap> maps;
    for (const auto& i : items) {
        EXPECT_EQ(i.range, items.front().range);
        maps.push_back(i.heatmap);
    }
    EXPECT_EQ(items.front().range, lesson::colourRange(maps));
}

TEST(ExportPlan, NamesWhatDoesNotExist)
{
    lesson::ExportSelection layer;
    layer.layers.add(7, 7);
    EXPECT_EQ(planError(layer), "Layer 7 does not exist; reverse has layers 0–1.");
    lesson::ExportSelection head;
    head.heads.add(0, 2'000'000'000); // checked against the real count without expanding
    EXPECT_EQ(planError(head), "Head 4 does not exist; the attention has heads 0–3.");
}

TEST(ExportPlan, BlockTheModelLacksIsNamed)
{
    lesson::ExportSelection s;
    s.blocks = {engine::Block::Cross};
    const auto genesis = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(openModel("genesis"), {.text = "and god"}));
    try {
        lesson::planModelExport(genesis, s);
        FAIL();
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(),
                    HasSubstr("Block cross does not exist in genesis, a decoder-only model."));
    }
}

// #22 item 17: the model's name (config.json's "name", a folder's, an import's "model") was
// echoed raw, and a right-to-left override in it turned the rest of the sentence around.
TEST(ExportPlan, TheModelsNameIsEchoedEscapedAndCut)
{
    const std::string name = "re\u202everse\x1b[2J\n" + std::string(100, 'x');
    const std::string echoed = "re\\u202everse\\x1b[2J\\n" + std::string(38, 'x') + "…";
    const auto named = [&](const char* model, lesson::RunRequest request) {
        lesson::ModelRun run = lesson::runModelOnText(openModel(model), request);
        run.config.name = name;
        return std::make_shared<const lesson::ModelRun>(std::move(run));
    };
    lesson::ExportSelection layer;
    layer.layers.add(7, 7);
    EXPECT_EQ(planError(layer, named("reverse", {.text = "abc", .target = "cba"})),
              "Layer 7 does not exist; " + echoed + " has layers 0–1.");
    lesson::ExportSelection block;
    block.blocks = {engine::Block::Cross};
    EXPECT_EQ(planError(block, named("genesis", {.text = "and god"})),
              "Block cross does not exist in " + echoed + ", a decoder-only model.");
}

TEST(ExportPlan, BatchedWalkthroughNamesItsItems)
{
    lesson::PlaygroundSettings settings;
    settings.querySentences = {"a b", "c d e"};
    lesson::ExportSelection s;
    s.heads.add(1, 1);
    const auto items =
        lesson::planWalkthroughExport(lesson::computePlayground(settings), s, "", "playground · ");
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0].baseName, "batch0_head1_weights");
    EXPECT_EQ(items[1].baseName, "batch1_head1_weights");
    EXPECT_EQ(items[1].heatmap.title, "playground · batch 1 · head 1 · weights");
}

} // namespace
} // namespace attnviz::test
