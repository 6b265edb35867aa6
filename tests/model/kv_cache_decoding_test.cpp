// Greedy decoding with a KV cache (TransformerModel::forwardWithCache) against decoding without
// one, on models of every kind of position and attention: learned positions (genesis), an
// encoder-decoder with sinusoidal positions (reverse), and Hugging Face folders with rotary
// positions, grouped K/V heads and sliding windows (Mistral, Qwen2). The choices are the same,
// each step's attention row equals the last row of the full causal pass, the cache holds one row
// a token, and what the multiply-adds count says is checked on a hand-counted model.
#include "model/model_fixtures.h"

#include "engine/greedy_decoder.h"
#include "engine/input_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace attnviz::test {
namespace {

using engine::Block;
using engine::DecoderCache;
using engine::ModelInput;
using engine::ModelTrace;

std::shared_ptr<const io::LoadedModel> openFolder(const std::string& name)
{
    if (name.starts_with("hf/"))
        return std::make_shared<const io::LoadedModel>(
            io::loadModel((std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / name).string()));
    return openModel(name);
}

struct Decoding {
    std::string model;
    std::string text;
    int newTokens;
};

class CachedDecoding : public ::testing::TestWithParam<Decoding> { };

TEST_P(CachedDecoding, ChoosesAsTheFullPassAndEachRowEqualsIt)
{
    const auto loaded = openFolder(GetParam().model);
    const engine::TransformerModel& model = *loaded->model;
    const engine::ModelConfig& c = model.config();
    std::vector<int> source, prefix = loaded->tokenizer->encode(GetParam().text);
    if (c.hasEncoder()) {
        source = prefix;
        prefix = {*c.bosTokenId};
    }
    const int vocabulary = loaded->tokenizer->size();
    const auto plain =
        engine::decodeGreedily(model, source, prefix, GetParam().newTokens, vocabulary);
    const auto cached =
        engine::decodeGreedilyWithCache(model, source, prefix, GetParam().newTokens, vocabulary);
    ASSERT_EQ(cached.size(), plain.size());
    ASSERT_GE(cached.size(), 2u);
    for (std::size_t s = 0; s < cached.size(); ++s) {
        SCOPED_TRACE("step " + std::to_string(s));
        EXPECT_EQ(cached[s].chosen, plain[s].chosen);
        EXPECT_EQ(cached[s].input, plain[s].input);
        EXPECT_NEAR(cached[s].probability, plain[s].probability, 1e-5);
        const ModelTrace& withCache = *cached[s].trace;
        const ModelTrace& full = *plain[s].trace;
        // The prefill reads the whole prefix; every later step one token.
        const std::int64_t n = static_cast<std::int64_t>(cached[s].input.size());
        const std::int64_t m = s == 0 ? n : 1;
        EXPECT_EQ(withCache.targetIds.size(), static_cast<std::size_t>(m));
        for (int layer = 0; layer < c.decoderLayers; ++layer) {
            const auto& rows = withCache.attentionBlock(layer, Block::MaskedSelf)->attention;
            const auto& all = full.attentionBlock(layer, Block::MaskedSelf)->attention;
            ASSERT_EQ(rows.queryLength(), m);
            ASSERT_EQ(rows.keyLength(), n);
            for (std::int64_t h = 0; h < rows.numHeads(); ++h)
                for (std::int64_t i = 0; i < m; ++i)
                    for (std::int64_t j = 0; j < n; ++j)
                        EXPECT_NEAR(rows.weights.at({0, h, i, j}),
                                    all.weights.at({0, h, n - m + i, j}), 1e-5)
                            << "layer " << layer << " head " << h << " row " << i << " key " << j;
            // The keys the step reads are every token's so far.
            const engine::Tensor& keys = rows.description.rotary ? rows.kRotated : rows.kHeads;
            const engine::Tensor& allKeys = all.description.rotary ? all.kRotated : all.kHeads;
            for (std::int64_t g = 0; g < keys.dim(1); ++g)
                for (std::int64_t j = 0; j < n; ++j)
                    for (std::int64_t f = 0; f < keys.dim(3); ++f)
                        EXPECT_NEAR(keys.at({0, g, j, f}), allKeys.at({0, g, j, f}), 1e-5);
        }
        const auto last = withCache.logits.matrix({0}).row(withCache.logits.dim(1) - 1);
        const auto lastFull = full.logits.matrix({0}).row(full.logits.dim(1) - 1);
        EXPECT_LT((last - lastFull).cwiseAbs().maxCoeff(), 1e-4);
    }
}

INSTANTIATE_TEST_SUITE_P(Models, CachedDecoding,
                         ::testing::Values(Decoding{"genesis", "and god said", 12},
                                           Decoding{"reverse", "abcdef", 8},
                                           Decoding{"hf/mistral", "Hello world, this is a test", 6},
                                           Decoding{"hf/qwen2", "Hello world, this is a test", 6},
                                           Decoding{"hf/llama3", "Hello world", 5}),
                         [](const auto& param) {
                             std::string name = param.param.model;
                             std::replace(name.begin(), name.end(), '/', '_');
                             return name;
                         });

TEST(CachedDecoding, RefusesWhatDoesNotFitAndKeepsTheCache)
{
    const auto loaded = openModel("genesis");
    const engine::TransformerModel& model = *loaded->model;
    DecoderCache cache;
    model.forwardWithCache(ModelInput{{}, {}, loaded->tokenizer->encode("and god")}, cache);
    ASSERT_EQ(cache.tokens(), 7);
    const auto refused = [&](const ModelInput& input, const char* words) {
        try {
            model.forwardWithCache(input, cache);
            ADD_FAILURE() << "accepted; expected: " << words;
        } catch (const engine::InputError& e) {
            EXPECT_THAT(e.what(), ::testing::HasSubstr(words));
        }
        EXPECT_EQ(cache.tokens(), 7);
    };
    const int context = model.config().maxLength;
    refused({{}, {}, std::vector<int>(static_cast<std::size_t>(context - 6), 1)}, "max_length");
    refused({{}, {}, {model.config().vocabSize}}, "outside the vocabulary");
    refused({{1}, {}, {1}}, "no encoder");
    refused({{}, {}, {}}, "empty");
    // What fits still fits after the refusals.
    model.forwardWithCache(
        ModelInput{{}, {}, std::vector<int>(static_cast<std::size_t>(context - 7), 1)}, cache);
    EXPECT_EQ(cache.tokens(), context);
}

TEST(CachedDecoding, MultiplyAddsAreCountedFromTheShapes)
{
    // One decoder layer, D 4, 2 heads of 2, F 8 (plain), vocabulary 10, causal: by hand.
    engine::ModelConfig c;
    c.architecture = engine::Architecture::DecoderOnly;
    c.vocabSize = 10;
    c.modelWidth = 4;
    c.numHeads = 2;
    c.feedForwardWidth = 8;
    c.decoderLayers = 1;
    c.maxLength = 16;
    const std::int64_t projections = 4 * 4 * 4; // q, k, v and o: 4 × 4 each
    const std::int64_t perKey = 2 * (2 + 2); // two heads: a score and a weighted value of 2
    const std::int64_t ffn = 2 * 8 * 4, logits = 10 * 4;
    // The fourth token with a cache: its projections, 4 keys, its feed-forward, one logit row.
    EXPECT_EQ(engine::decoderMultiplyAdds(c, 3, 1), projections + 4 * perKey + ffn + logits);
    // Without: all four tokens again, the causal triangle 1 + 2 + 3 + 4 keys.
    EXPECT_EQ(engine::decoderMultiplyAdds(c, 0, 4),
              4 * projections + 10 * perKey + 4 * ffn + logits);
    // A window of 2 keys caps what each query reads.
    c.slidingWindow = 2;
    EXPECT_EQ(engine::decoderMultiplyAdds(c, 3, 1), projections + 2 * perKey + ffn + logits);
    // Grouped K/V heads project fewer keys and values: one K/V head of 2.
    c.slidingWindow.reset();
    c.numKeyValueHeads = 1;
    EXPECT_EQ(engine::decoderMultiplyAdds(c, 3, 1),
              projections - 2 * 2 * 4 + 4 * perKey + ffn + logits);
}

} // namespace
} // namespace attnviz::test
