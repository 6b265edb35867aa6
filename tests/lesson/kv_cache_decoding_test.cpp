// The KV cache lesson (lesson::decodeWithKvCache): the steps read the prompt, then one token
// each; the choices are plain greedy decoding's; every step's numbers equal one full pass's; the
// work and the cache's bytes are the engine's counts; the maps fill column by column and row by
// row with the numbers of the step's own trace.
#include "model/model_fixtures.h"

#include "engine/input_error.h"
#include "engine/key_value_cache.h"
#include "lesson/kv_cache_decoding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace attnviz::test {
namespace {

using engine::Block;

std::shared_ptr<const io::LoadedModel> mistral()
{
    return std::make_shared<const io::LoadedModel>(
        io::loadModel((std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "hf" / "mistral").string()));
}

TEST(KvCacheLesson, StepsReadThePromptThenOneTokenEach)
{
    const auto model = openModel("genesis");
    const std::vector<int> prompt = model->tokenizer->encode("in the beginning");
    const lesson::KvCacheDecoding d = lesson::decodeWithKvCache(model, {}, prompt, 10);
    ASSERT_EQ(d.steps.size(), 10u);
    EXPECT_EQ(d.promptLength, std::ssize(prompt));
    EXPECT_EQ(d.steps[0].firstPosition, 0);
    EXPECT_EQ(d.steps[0].tokensRead, std::ssize(prompt));
    const auto plain =
        engine::decodeGreedily(*model->model, {}, prompt, 10, model->tokenizer->size());
    std::vector<int> expectedIds = prompt;
    for (std::size_t s = 0; s < d.steps.size(); ++s) {
        const lesson::KvCacheStep& step = d.steps[s];
        if (s > 0) {
            EXPECT_EQ(step.tokensRead, 1);
            EXPECT_EQ(step.firstPosition, d.tokensAfter(static_cast<int>(s) - 1));
            expectedIds.push_back(d.steps[s - 1].chosen);
        }
        EXPECT_EQ(step.chosen, plain[s].chosen) << "step " << s;
        EXPECT_LT(step.largestDifference, 1e-5) << "step " << s;
        // The work: counted from the shapes, the cache's saving growing with the text.
        const engine::ModelConfig& c = model->model->config();
        EXPECT_EQ(step.multiplyAddsWithCache,
                  engine::decoderMultiplyAdds(c, step.firstPosition, step.tokensRead));
        EXPECT_EQ(step.multiplyAddsWithout,
                  engine::decoderMultiplyAdds(c, 0, d.tokensAfter(static_cast<int>(s))));
        if (s > 0) {
            EXPECT_LT(step.multiplyAddsWithCache, step.multiplyAddsWithout);
        }
        EXPECT_EQ(step.cacheBytes, d.tokensAfter(static_cast<int>(s)) * d.bytesPerToken);
    }
    EXPECT_EQ(d.ids, expectedIds);
    EXPECT_LT(d.largestDifference, 1e-5);
    const engine::ModelConfig& c = model->model->config();
    EXPECT_EQ(d.bytesPerToken, 2 * c.decoderLayers * c.numHeads * c.headSize() * 4);
}

TEST(KvCacheLesson, CachedKeysFillColumnByColumnWithTheStepsOwnNumbers)
{
    const auto model = mistral(); // rotary positions, one K/V head for four query heads, window 4
    const lesson::KvCacheDecoding d =
        lesson::decodeWithKvCache(model, {}, model->tokenizer->encode("Hello world"), 6);
    ASSERT_GE(d.steps.size(), 3u);
    const int tokens = static_cast<int>(d.ids.size());
    for (int s = 0; s < static_cast<int>(d.steps.size()); ++s) {
        const auto& t =
            d.traces[static_cast<std::size_t>(s)]->attentionBlock(1, Block::MaskedSelf)->attention;
        for (const bool values : {false, true}) {
            const lesson::Heatmap h = lesson::cachedKeysOrValues(d, s, 1, 0, values);
            const engine::Tensor& cached = values ? t.vHeads : t.kRotated;
            ASSERT_EQ(h.cols(), tokens);
            ASSERT_EQ(h.rows(), cached.dim(3));
            for (int j = 0; j < tokens; ++j)
                for (int f = 0; f < h.rows(); ++f) {
                    EXPECT_EQ(h.blocked(f, j), j >= d.tokensAfter(s)) << "step " << s;
                    if (j < d.tokensAfter(s)) {
                        EXPECT_EQ(h.value(f, j), cached.at({0, 0, j, f}));
                    }
                }
            EXPECT_EQ(h.matrix.columnLabels[0], model->tokenizer->displayToken(d.ids[0]));
        }
    }
    EXPECT_THROW(lesson::cachedKeysOrValues(d, 0, 0, 1, false), engine::InputError);
    EXPECT_THROW(lesson::cachedKeysOrValues(d, 99, 0, 0, false), engine::InputError);
}

TEST(KvCacheLesson, WeightsFillRowByRowWithinTheMask)
{
    const auto model = mistral();
    const lesson::KvCacheDecoding d =
        lesson::decodeWithKvCache(model, {}, model->tokenizer->encode("Hello world"), 6);
    const int window = *model->model->config().slidingWindow;
    for (int s = 0; s < static_cast<int>(d.steps.size()); ++s) {
        const lesson::Heatmap h = lesson::weightsSoFar(d, s, 0, 3);
        const std::int64_t read = d.tokensAfter(s);
        for (int i = 0; i < h.rows(); ++i) {
            double sum = 0;
            for (int j = 0; j < h.cols(); ++j) {
                const bool shouldBlock = i >= read || j > i || i - j >= window;
                EXPECT_EQ(h.blocked(i, j), shouldBlock)
                    << "step " << s << " [" << i << ", " << j << "]";
                if (!shouldBlock)
                    sum += h.value(i, j);
            }
            if (i < read) {
                EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
            }
        }
    }
    // The last step's row is that step's own.
    const int last = static_cast<int>(d.steps.size()) - 1;
    const auto& t = d.traces.back()->attentionBlock(0, Block::MaskedSelf)->attention;
    const lesson::Heatmap h = lesson::weightsSoFar(d, last, 0, 3);
    for (int j = 0; j < h.cols(); ++j)
        EXPECT_EQ(h.value(h.rows() - 1, j), t.weights.at({0, 3, 0, j}));
}

TEST(KvCacheLesson, RefusesImpossibleRequestsInOneSentence)
{
    const auto genesis = openModel("genesis");
    const auto refused = [](auto call, const char* words) {
        try {
            call();
            ADD_FAILURE() << "accepted; expected: " << words;
        } catch (const engine::InputError& e) {
            EXPECT_THAT(e.what(), ::testing::HasSubstr(words));
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
    };
    refused([&] { lesson::decodeWithKvCache(genesis, {}, {1, 2}, 0); }, "expected 1 to");
    refused([&] { lesson::decodeWithKvCache(genesis, {}, {1, 2}, 100000); }, "expected 1 to");
    refused([&] { lesson::decodeWithKvCache(genesis, {}, {}, 3); }, "empty");
    refused(
        [&] {
            lesson::decodeWithKvCache(genesis, {}, {1, 2}, 3, std::uint64_t{1000});
        },
        "memory");
    refused(
        [&] {
            lesson::decodeWithKvCache(openModel("encoder_only"), {}, {1, 2}, 3);
        },
        "encoder-only");
}

TEST(KvCacheLesson, StopsBetweenStepsWhenAsked)
{
    const auto genesis = openModel("genesis");
    std::atomic<bool> stop = true;
    const lesson::KvCacheDecoding d =
        lesson::decodeWithKvCache(genesis, {}, genesis->tokenizer->encode("and"), 5, {}, &stop);
    EXPECT_TRUE(d.steps.empty());
}

} // namespace
} // namespace attnviz::test
