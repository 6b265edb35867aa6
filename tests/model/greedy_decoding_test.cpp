// Greedy decoding with the C++ engine: the reverse demo solves its task on strings it never saw
// in training, the text demo continues a prompt exactly as PyTorch did, and every decoding step
// keeps a trace in which the decoder sees only earlier tokens.
#include "io/builtin_models.h"
#include "model/model_fixtures.h"

#include "engine/greedy_decoder.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"
#include "lesson/model_run.h"

#include <gtest/gtest.h>

#include <sstream>

namespace attnviz::test {
namespace {

TEST(GreedyDecoding, ReverseModelSolvesHeldOutStrings)
{
    const auto model = openModel("reverse");
    std::istringstream lines(
        io::readFile((io::builtInModelsFolder() / "reverse" / "heldout.txt").string()));
    std::string line;
    int total = 0, correct = 0;
    while (std::getline(lines, line)) {
        const auto tab = line.find('\t');
        ASSERT_NE(tab, std::string::npos);
        const lesson::ModelRun run = lesson::runModelOnText(model, {.text = line.substr(0, tab)});
        correct += run.generated == line.substr(tab + 1);
        ++total;
    }
    ASSERT_GE(total, 200);
    const double accuracy = static_cast<double>(correct) / total;
    RecordProperty("accuracy", std::to_string(accuracy));
    EXPECT_GE(accuracy, 0.95) << correct << " of " << total;
}

TEST(GreedyDecoding, TextModelContinuesAPromptAsPyTorchDid)
{
    const auto model = openModel("genesis");
    const auto reference = io::SafetensorsFile::read(referenceFile("genesis"));
    const std::string prompt = reference.metadata().find("greedy.prompt")->asString();
    const std::string expected = reference.metadata().find("greedy.output")->asString();
    // PyTorch slid its window past max_length; the engine continues a text only while the whole
    // sequence fits its context (one character, one token), so the two agree on all it writes.
    const int context = model->model->config().maxLength;
    const int newTokens = std::min(static_cast<int>(expected.size() - prompt.size()),
                                   context - static_cast<int>(prompt.size()));
    const lesson::ModelRun run =
        lesson::runModelOnText(model, {.text = prompt, .generate = newTokens});
    const std::string ours = prompt + run.generated;
    EXPECT_EQ(static_cast<int>(ours.size()), std::min(context, static_cast<int>(expected.size())));
    EXPECT_EQ(ours, expected.substr(0, ours.size()));
}

TEST(GreedyDecoding, EveryStepKeepsATraceThatSeesOnlyEarlierTokens)
{
    const auto model = openModel("reverse");
    const lesson::ModelRun run = lesson::runModelOnText(model, {.text = "abcd"});
    ASSERT_EQ(run.generated, "dcba");
    ASSERT_EQ(run.decoding.size(), 5u); // four letters, then the end token
    EXPECT_EQ(model->tokenizer->token(run.decoding.back().chosen), "</s>");
    for (std::size_t k = 0; k < run.decoding.size(); ++k) {
        const engine::DecodingStep& step = run.decoding[k];
        EXPECT_EQ(step.input.size(), k + 1);
        EXPECT_GT(step.probability, 0.5f);
        for (int layer = 0; layer < model->model->config().decoderLayers; ++layer) {
            const engine::Tensor& w =
                step.trace->attentionBlock(layer, engine::Block::MaskedSelf)->attention.weights;
            ASSERT_EQ(w.dim(2), static_cast<std::int64_t>(k + 1));
            for (std::int64_t h = 0; h < w.dim(1); ++h)
                for (std::int64_t q = 0; q < w.dim(2); ++q)
                    for (std::int64_t key = q + 1; key < w.dim(3); ++key)
                        EXPECT_EQ(w.at({0, h, q, key}), 0.0f) << "step " << k << " layer " << layer;
        }
    }
}

TEST(GreedyDecoding, TargetGivenMeansTeacherForcing)
{
    const auto model = openModel("reverse");
    const lesson::ModelRun run = lesson::runModelOnText(model, {.text = "abc", .target = "xyz"});
    EXPECT_TRUE(run.decoding.empty());
    EXPECT_EQ(model->tokenizer->tokens(run.trace->targetIds),
              (std::vector<std::string>{"<s>", "x", "y", "z"}));
    EXPECT_EQ(model->tokenizer->tokens(run.trace->sourceIds),
              (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TrainedHeads, TextModelHasAPreviousTokenHeadAndAFarReachingOne)
{
    // What the demo promises a learner (resources/models/genesis/README.md), measured with the
    // C++ engine on the model's example sentence.
    const auto model = openModel("genesis");
    const lesson::ModelRun run =
        lesson::runModelOnText(model, {.text = model->model->config().exampleText});
    double bestPrevious = 0, bestReach = 0;
    for (int layer = 0; layer < model->model->config().decoderLayers; ++layer) {
        const engine::Tensor& w =
            run.trace->attentionBlock(layer, engine::Block::MaskedSelf)->attention.weights;
        const std::int64_t n = w.dim(2);
        for (std::int64_t h = 0; h < w.dim(1); ++h) {
            double previous = 0, reach = 0;
            for (std::int64_t q = 1; q < n; ++q)
                previous += w.at({0, h, q, q - 1}) / static_cast<double>(n - 1);
            for (std::int64_t q = 8; q < n; ++q)
                for (std::int64_t k = 0; k <= q; ++k)
                    reach += w.at({0, h, q, k}) * static_cast<double>(q - k) /
                        static_cast<double>(n - 8);
            bestPrevious = std::max(bestPrevious, previous);
            bestReach = std::max(bestReach, reach);
        }
    }
    EXPECT_GT(bestPrevious, 0.9);
    EXPECT_GT(bestReach, 6.0); // characters looked back on average: beyond the current word
}

} // namespace
} // namespace attnviz::test
