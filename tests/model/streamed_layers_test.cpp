// A model that streams its layers (read from the checkpoint each time a pass needs one, as a
// 1B-parameter model is opened) computes the very same bits as the same model held in memory,
// is counted and budgeted as it is held, and turns a checkpoint changed under it into a sentence
// rather than a crash.
#include "support/temp_folder.h"

#include "engine/input_error.h"
#include "engine/transformer_model.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/memory_budget.h"
#include "lesson/model_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/parameter_count.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kHf = fs::path(ATTNVIZ_TEST_DATA_DIR) / "hf";

bool sameBits(const engine::Tensor& a, const engine::Tensor& b)
{
    return a.shape() == b.shape() &&
        std::equal(a.values().begin(), a.values().end(), b.values().begin(),
                   [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

std::map<std::string, engine::Tensor> everyTensor(const engine::ModelTrace& trace)
{
    std::map<std::string, engine::Tensor> out;
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& t) { out[name] = t; });
    return out;
}

engine::ModelInput inputFor(const engine::TransformerModel& model)
{
    const bool encoder = model.config().hasEncoder();
    const std::vector<int> ids = {1, 5, 9, 2, 7, 3};
    return encoder ? engine::ModelInput{ids, {}, {}} : engine::ModelInput{{}, {}, ids};
}

class StreamedLayers : public ::testing::TestWithParam<std::string> { };

TEST_P(StreamedLayers, ComputeTheSameBitsAsLayersHeldInMemory)
{
    const std::string folder = (kHf / GetParam()).string();
    const io::LoadedModel held = io::loadModel(folder, {}, io::LayerStreaming::Never);
    const io::LoadedModel streamed = io::loadModel(folder, {}, io::LayerStreaming::Always);
    ASSERT_FALSE(held.model->streamsLayers());
    ASSERT_TRUE(streamed.model->streamsLayers());

    engine::CapturePolicy all;
    all.allLogits = true;
    const auto expected = everyTensor(held.model->forward(inputFor(*held.model), all));
    const engine::ModelTrace trace = streamed.model->forward(inputFor(*streamed.model), all);
    const auto actual = everyTensor(trace);
    ASSERT_EQ(actual.size(), expected.size()) << GetParam();
    for (const auto& [name, tensor] : expected)
        EXPECT_TRUE(actual.contains(name) && sameBits(actual.at(name), tensor))
            << GetParam() << " " << name;

    // Counted as the configuration says, whether held or streamed; budgeted as held: the
    // embedding, norms and output, and one layer.
    const lesson::ModelParameters p = lesson::modelParameters(*streamed.model);
    EXPECT_EQ(p.total(), lesson::modelParameters(*held.model).total());
    const auto layers = p.decoderLayers.empty() ? p.encoderLayers : p.decoderLayers;
    EXPECT_EQ(lesson::modelWeightBytes(*streamed.model),
              4u * static_cast<std::uint64_t>(p.total() - (layers.size() - 1) * layers.front()))
        << GetParam();
}

TEST_P(StreamedLayers, RecomputedAttentionIsTheWholeLayersFirstBlock)
{
    const io::LoadedModel loaded =
        io::loadModel((kHf / GetParam()).string(), {}, io::LayerStreaming::Always);
    const engine::TransformerModel& model = *loaded.model;
    const engine::ModelTrace trace =
        model.forward(inputFor(model), engine::CapturePolicy::attentionWeights());
    const engine::Block block =
        model.config().hasEncoder() ? engine::Block::Self : engine::Block::MaskedSelf;
    const int last = (model.config().hasEncoder() ? model.config().encoderLayers
                                                  : model.config().decoderLayers) -
        1;
    const engine::LayerTrace whole = model.recomputeLayer(trace, block, last);
    const engine::LayerTrace attention = model.recomputeAttention(trace, block, last);
    ASSERT_EQ(attention.attention.size(), 1u);
    EXPECT_FALSE(attention.feedForward.feedForward.output.rank());
    EXPECT_TRUE(
        sameBits(attention.attention[0].attention.weights, whole.attention[0].attention.weights));
    EXPECT_TRUE(sameBits(attention.attention[0].residual, whole.attention[0].residual));
    EXPECT_THROW(model.recomputeAttention(trace, engine::Block::DecoderFeedForward, last),
                 engine::InputError);
}

// Switching the shown layer recomputes its attention alone: the feed-forward block, five sixths
// of a Llama layer's weights, is not read for it, yet a whole layer asked for afterwards has it,
// and both compute what the held model does.
TEST_P(StreamedLayers, AttentionAloneLeavesTheFeedForwardUnread)
{
    const std::string folder = (kHf / GetParam()).string();
    const io::LoadedModel loaded = io::loadModel(folder, {}, io::LayerStreaming::Always);
    const io::LoadedModel held = io::loadModel(folder, {}, io::LayerStreaming::Never);
    const engine::TransformerModel& model = *loaded.model;
    const bool decoder = !model.config().hasEncoder();
    const engine::Block block = decoder ? engine::Block::MaskedSelf : engine::Block::Self;
    const engine::ModelTrace trace =
        model.forward(inputFor(model), engine::CapturePolicy::attentionWeights());
    const engine::ModelTrace heldTrace =
        held.model->forward(inputFor(*held.model), engine::CapturePolicy::attentionWeights());
    const int layer = 0; // the pass ended on the last layer, so this one is read again

    const engine::LayerTrace attention = model.recomputeAttention(trace, block, layer);
    const auto attentionOnly = model.layer(decoder, layer, engine::LayerPart::Attention);
    EXPECT_EQ(attentionOnly->weights.feedForward.w1.size(), 0) << GetParam();
    EXPECT_EQ(attentionOnly->weights.feedForwardNorm.gain.size(), 0) << GetParam();
    EXPECT_TRUE(sameBits(
        attention.attention[0].attention.weights,
        held.model->recomputeAttention(heldTrace, block, layer).attention[0].attention.weights))
        << GetParam();

    const auto whole = model.layer(decoder, layer);
    EXPECT_GT(whole->weights.feedForward.w1.size(), 0) << GetParam();
    EXPECT_GT(whole->weights.feedForwardNorm.gain.size(), 0) << GetParam();
    EXPECT_TRUE(sameBits(model.recomputeLayer(trace, block, layer).feedForward.residual,
                         held.model->recomputeLayer(heldTrace, block, layer).feedForward.residual))
        << GetParam();
    // The whole layer now loaded serves an attention-only request as it is.
    EXPECT_EQ(model.layer(decoder, layer, engine::LayerPart::Attention), whole);
}

INSTANTIATE_TEST_SUITE_P(Folders, StreamedLayers,
                         ::testing::Values("llama3", "tinyllama", "mistral", "qwen2", "smollm",
                                           "gpt2", "bert"));

// The overview's thumbnails of a streamed model read no layer: their walkthroughs carry the
// mask of the block's policy and no module. A full walkthrough has the module, with the same
// weights a held model gives.
TEST(StreamedLayersWalkthrough, ThumbnailsReadNoLayerAndFullWalkthroughsHaveTheModule)
{
    const std::string folder = (kHf / "mistral").string();
    lesson::RunRequest request;
    request.text = "The capital of France is Paris";
    const auto run = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(std::make_shared<const io::LoadedModel>(
                                   io::loadModel(folder, {}, io::LayerStreaming::Always)),
                               request));
    const auto held = std::make_shared<const lesson::ModelRun>(
        lesson::runModelOnText(std::make_shared<const io::LoadedModel>(
                                   io::loadModel(folder, {}, io::LayerStreaming::Never)),
                               request));
    const lesson::BlockChoice choice{1, engine::Block::MaskedSelf, -1};
    const auto weightsOnly = engine::AttentionKeep::only({engine::AttentionStep::Weights});
    const auto thumbnail = lesson::walkthroughForBlock(run, choice, weightsOnly);
    EXPECT_EQ(thumbnail->module, nullptr);
    const auto heldThumbnail = lesson::walkthroughForBlock(held, choice, weightsOnly);
    ASSERT_NE(heldThumbnail->module, nullptr);
    EXPECT_EQ(thumbnail->mask.causal, heldThumbnail->mask.causal);
    EXPECT_EQ(thumbnail->mask.window, heldThumbnail->mask.window);
    EXPECT_TRUE(thumbnail->mask.window.has_value()); // Mistral's window, on every layer
    EXPECT_TRUE(sameBits(thumbnail->trace->weights, heldThumbnail->trace->weights));

    const auto full = lesson::walkthroughForBlock(run, choice);
    const auto heldFull = lesson::walkthroughForBlock(held, choice);
    ASSERT_NE(full->module, nullptr);
    EXPECT_EQ(full->module->weights().wK, heldFull->module->weights().wK);
    EXPECT_EQ(full->module->weights().wO, heldFull->module->weights().wO);
    EXPECT_TRUE(sameBits(full->trace->scores, heldFull->trace->scores));
    EXPECT_TRUE(sameBits(full->trace->kRotated, heldFull->trace->kRotated));
}

TEST(StreamedLayersChoice, SmallModelsAreHeldAndTwoStackModelsNeverStream)
{
    EXPECT_FALSE(io::loadModel((kHf / "llama3").string()).model->streamsLayers());
    const fs::path own =
        fs::path(ATTNVIZ_TEST_DATA_DIR) / ".." / ".." / "resources" / "models" / "reverse";
    EXPECT_FALSE(
        io::loadModel(own.string(), {}, io::LayerStreaming::Always).model->streamsLayers());
}

class StreamedFileChanged : public TempFolderTest { };

// The layers are read long after opening; a checkpoint rewritten or cut short meanwhile must
// give one sentence, never SIGBUS from a mapped page past the end of the file.
TEST_F(StreamedFileChanged, IsASentenceNotACrash)
{
    for (const auto& entry : fs::directory_iterator(kHf / "mistral"))
        fs::copy_file(entry.path(), fs::path(dir()) / entry.path().filename());
    const io::LoadedModel loaded = io::loadModel(dir(), {}, io::LayerStreaming::Always);
    const engine::ModelInput input = inputFor(*loaded.model);
    EXPECT_NO_THROW(loaded.model->forward(input));

    const fs::path weights = fs::path(dir()) / "model.safetensors";
    fs::resize_file(weights, fs::file_size(weights) / 2);
    try {
        loaded.model->forward(input);
        ADD_FAILURE() << "a pass over a truncated checkpoint went through";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("Layer 0 cannot be read"));
        EXPECT_THAT(e.what(), HasSubstr("changed on disk after it was opened; open it again."));
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
}

} // namespace
} // namespace attnviz::test
