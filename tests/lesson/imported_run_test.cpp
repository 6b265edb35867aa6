// Attention weights computed elsewhere, read as a model run (#10): the blocks they become, the
// tokens, every lesson step on them, exports, and the refusals for what an import cannot show.
#include "lesson/export_plan.h"
#include "lesson/imported_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/step_view.h"
#include "lesson/trace_export.h"

#include "engine/input_error.h"
#include "io/attention_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

using ::testing::HasSubstr;

std::string fixture(const std::string& name)
{
    return std::string(ATTNVIZ_TEST_DATA_DIR) + "/attentions/" + name + ".safetensors";
}

TEST(ImportedRun, EachKindOfFileBecomesItsBlock)
{
    const struct {
        const char* file;
        engine::Block block;
        engine::Architecture architecture;
    } kinds[] = {{"gpt_layers", engine::Block::MaskedSelf, engine::Architecture::DecoderOnly},
                 {"bert_padded", engine::Block::Self, engine::Architecture::EncoderOnly},
                 {"cross", engine::Block::Cross, engine::Architecture::EncoderDecoder}};
    for (const auto& kind : kinds) {
        const io::ImportedAttentions file = io::readAttentionImport(fixture(kind.file));
        const auto run = openImportedRun(fixture(kind.file));
        EXPECT_EQ(run->config.architecture, kind.architecture) << kind.file;
        EXPECT_EQ(run->config.numHeads, file.heads) << kind.file;
        ASSERT_EQ(run->trace->layerCount(), file.layers) << kind.file;
        for (int L = 0; L < file.layers; ++L) {
            EXPECT_EQ(run->trace->attentionBlocks(L), std::vector<engine::Block>{kind.block});
            const auto w = walkthroughForBlock(run, {L, kind.block, -1});
            EXPECT_TRUE(w->weightsOnly());
            EXPECT_EQ(w->queryTokens[0], file.queryTokens) << kind.file;
            EXPECT_EQ(w->keyTokens[0], file.keyTokens) << kind.file;
            EXPECT_EQ(w->crossAttention, kind.block == engine::Block::Cross);
            const engine::Tensor& weights = w->trace->weights;
            ASSERT_EQ(weights.shape(), file.weights[static_cast<std::size_t>(L)].shape());
            EXPECT_TRUE(std::equal(weights.values().begin(), weights.values().end(),
                                   file.weights[static_cast<std::size_t>(L)].values().begin()));
        }
    }
}

TEST(ImportedRun, LessonStepsShowTheWeightsAndNothingInvented)
{
    const auto run = openImportedRun(fixture("gpt_layers"));
    const auto w = walkthroughForBlock(run, {1, engine::Block::MaskedSelf, -1});
    for (const LessonStep& step : kLessonSteps) {
        const bool shown =
            std::any_of(step.views.begin(), step.views.end(), [](const TraceView& v) {
                return v.step == engine::AttentionStep::Weights;
            });
        const auto maps = stepHeatmaps(step, w, 0);
        EXPECT_EQ(maps.size(), shown ? static_cast<std::size_t>(w->heads()) : 0u) << step.key;
        stepFormula(step, *w, "{B} {H} {Nq} {Nk} {D} {Po}"); // must not crash on missing sizes
    }
    // Causal: the weights above the diagonal are blocked cells, as in a model's own run.
    const auto maps =
        stepHeatmaps(kLessonSteps[*lessonStepShowing(engine::AttentionStep::Weights)], w, 0);
    EXPECT_TRUE(maps.front().blocked(0, 1));
    EXPECT_FALSE(maps.front().blocked(1, 0));
}

TEST(ImportedRun, ExportsPlanTheWeightsAndRefuseOtherSteps)
{
    const auto run = openImportedRun(fixture("gpt_layers"));
    ExportSelection selection;
    selection.steps = {engine::AttentionStep::Weights};
    const auto items = planModelExport(run, selection);
    EXPECT_EQ(items.size(), static_cast<std::size_t>(run->config.numHeads * 3));
    EXPECT_EQ(items.front().baseName, "layer0_masked_self_head0_weights");
    selection.steps = {engine::AttentionStep::Scores};
    try {
        planModelExport(run, selection);
        FAIL() << "planned scores of an import";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("attention weights only"));
    }
    const auto manifest = modelManifest(*run);
    EXPECT_EQ(manifest["source"], "import");
    EXPECT_EQ(manifest["target_tokens"].size(), 6u);
    EXPECT_FALSE(manifest.contains("target_ids")); // ids would be AttnViz's own numbering
}

TEST(ImportedRun, AMalformedFileIsOneSentenceNamingIt)
{
    try {
        openImportedRun(fixture("bad_gap"));
        FAIL() << "opened bad_gap";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("bad_gap.safetensors: "));
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
}

} // namespace
} // namespace attnviz::lesson
