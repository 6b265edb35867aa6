// Head types (#26): the detection patterns are TransformerLens' (checked cell by cell on a small
// example written out by hand), the "mul" score is the share of a head's attention on them, and
// on the bundled models the known heads come out on top: genesis' previous-character head
// (layer 0 head 1) and induction's induction head (layer 1 head 1); the modern model's
// previous-token heads (layer 2 heads 0 and 1, its README) lead theirs.
#include "engine/input_error.h"
#include "lesson/attention_sinks.h"
#include "lesson/head_types.h"
#include "lesson/picture_attention.h"
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

namespace attnviz::lesson {
namespace {

TEST(HeadTypes, DetectionPatternsAreTransformerLensOnes)
{
    // Tokens a b a b: positions 0 1 2 3.
    const std::vector<int> t = {7, 8, 7, 8};
    const auto rows = [](const std::vector<std::uint8_t>& p) {
        std::string out;
        for (std::size_t i = 0; i < p.size(); ++i)
            out += (p[i] ? '1' : '0') + std::string(i % 4 == 3 ? "|" : "");
        return out;
    };
    EXPECT_EQ(rows(detectionPattern(HeadType::PreviousToken, t)), "0000|1000|0100|0010|");
    // The same token earlier (never itself).
    EXPECT_EQ(rows(detectionPattern(HeadType::DuplicateToken, t)), "0000|0000|1000|0100|");
    // The token after an earlier copy of this one: the duplicate pattern shifted one right.
    EXPECT_EQ(rows(detectionPattern(HeadType::Induction, t)), "0000|0000|0100|0010|");
}

TEST(HeadTypes, TheScoreIsTheShareOfAttentionOnThePattern)
{
    engine::Tensor w({{"query", 3}, {"key", 3}});
    w.matrix({}) << 1, 0, 0, 0.25, 0.75, 0, 0.5, 0.5, 0;
    // Previous token: 0.25 + 0.5 of the 3 rows' weight.
    EXPECT_NEAR(patternScore(detectionPattern(HeadType::PreviousToken, {1, 2, 3}),
                             std::as_const(w).matrix({})),
                0.75 / 3, 1e-12);
}

TEST(HeadTypes, TheKnownHeadsOfTheBundledModelsComeOutOnTop)
{
    const auto top = [](const std::vector<HeadTypeMap>& maps, HeadType type) {
        for (const HeadTypeMap& m : maps)
            if (m.type == type)
                return m.ranking().front();
        return std::pair<int, int>{-1, -1};
    };
    const auto genesis = test::openModel("genesis");
    const engine::ModelTrace text = genesis->model->forward(
        {}, genesis->tokenizer->encode("and god said, let there be light: and there was light."));
    const engine::ModelTrace repeated = runOnRepeatedRandomTokens(*genesis);
    const auto g = headTypes(text, repeated);
    EXPECT_EQ(top(g, HeadType::PreviousToken), (std::pair<int, int>{0, 1}));

    const auto induction = test::openModel("induction");
    const auto i = headTypes(
        induction->model->forward({}, induction->tokenizer->encode("in the beginning god created")),
        runOnRepeatedRandomTokens(*induction));
    EXPECT_EQ(top(i, HeadType::Induction), (std::pair<int, int>{1, 1}));
    EXPECT_EQ(top(i, HeadType::PreviousToken), (std::pair<int, int>{0, 3}));

    const auto modern = test::openModel("modern");
    const auto m = headTypes(
        modern->model->forward(
            {},
            modern->tokenizer->encode("And God said, Let there be light: and there was light.")),
        runOnRepeatedRandomTokens(*modern));
    const auto best = top(m, HeadType::PreviousToken);
    EXPECT_EQ(best.first, 2);
    EXPECT_LE(best.second, 1);
}

TEST(HeadTypes, EveryScoreIsItsDefinition)
{
    const auto model = test::openModel("modern");
    const std::vector<int> ids = model->tokenizer->encode("the LORD spake unto Moses, saying");
    const engine::ModelTrace text = model->model->forward({}, ids);
    const engine::ModelTrace repeated = runOnRepeatedRandomTokens(*model);
    const auto maps = headTypes(text, repeated);
    ASSERT_EQ(maps.size(), kHeadTypes.size() - 1); // every type but the picture's distance
    for (const HeadTypeMap& map : maps) {
        ASSERT_EQ(map.layers, 4);
        ASSERT_EQ(map.heads, 6);
        const auto& trace = map.type == HeadType::Induction ? repeated : text;
        const auto& t = trace.attentionBlock(3, engine::Block::MaskedSelf)->attention;
        const auto a = t.weights.matrix({0, 2});
        double expected = 0;
        const std::vector<int>& tokens = trace.queryIds(engine::Block::MaskedSelf);
        for (Eigen::Index r = 0; r < a.rows(); ++r)
            for (Eigen::Index c = 0; c <= r; ++c) {
                const double w = a(r, c);
                switch (map.type) {
                case HeadType::PreviousToken:
                    expected += c + 1 == r ? w : 0;
                    break;
                case HeadType::DuplicateToken:
                    expected += c < r && tokens[c] == tokens[r] ? w : 0;
                    break;
                case HeadType::Induction:
                    expected += c >= 1 && tokens[c - 1] == tokens[r] ? w : 0;
                    break;
                case HeadType::Distance:
                    expected += w * static_cast<double>(r - c);
                    break;
                case HeadType::Entropy:
                    expected -= w > 0 ? w * std::log(w) : 0;
                    break;
                case HeadType::FirstToken:
                case HeadType::PixelDistance: // not among a text's maps (asserted above)
                    break;
                }
            }
        expected /= static_cast<double>(a.rows());
        if (map.type == HeadType::FirstToken)
            expected = firstTokenShare(t, 0, 2);
        EXPECT_NEAR(map.at(3, 2), expected, 1e-6) << headTypeInfo(map.type).name;
    }
    // The induction prompt: BOS, then 50 random ordinary tokens twice.
    const std::vector<int>& r = repeated.queryIds(engine::Block::MaskedSelf);
    ASSERT_EQ(r.size(), 101u);
    EXPECT_EQ(r[0], 1);
    for (std::size_t k = 1; k <= 50; ++k) {
        EXPECT_EQ(r[k], r[k + 50]);
        EXPECT_GT(r[k], 258) << "no special token or byte piece"; // <unk> <s> </s> and 256 bytes
    }
}

TEST(HeadTypes, AVisionTransformersHeadsAreScoredOverItsPicture)
{
    const io::LoadedModel vit = io::loadModel(std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/vit");
    const auto reference = io::SafetensorsFile::read(std::string(ATTNVIZ_TEST_DATA_DIR) +
                                                     "/hf/vit/reference.safetensors");
    engine::ModelInput input;
    input.pixels = test::tensorFrom(reference, "pixels");
    const engine::ModelTrace trace = vit.model->forward(input);
    const auto maps = pictureHeadTypes(trace, vit.model->config());
    ASSERT_EQ(maps.size(), 3u);
    EXPECT_EQ(maps[0].type, HeadType::FirstToken);
    EXPECT_EQ(maps[1].type, HeadType::PixelDistance);
    EXPECT_EQ(maps[2].type, HeadType::Entropy);
    const std::vector<double> pixels = meanAttentionDistanceInPixels(trace, vit.model->config());
    EXPECT_EQ(maps[1].values, pixels);
    for (int L = 0; L < 2; ++L)
        for (int h = 0; h < 2; ++h) {
            // [CLS]'s share, averaged over the rows, from PyTorch's weights.
            const engine::Tensor w =
                test::tensorFrom(reference, "layer" + std::to_string(L) + ".self.weights");
            double share = 0;
            for (int q = 0; q < w.dim(2); ++q)
                share += w.matrix({0, h})(q, 0);
            EXPECT_NEAR(maps[0].at(L, h), share / static_cast<double>(w.dim(2)), 1e-5);
            // Between the nearest patches (8 pixels) and the farthest (3·√2·8).
            EXPECT_GT(maps[1].at(L, h), 8.0);
            EXPECT_LT(maps[1].at(L, h), 3 * std::sqrt(2.0) * 8);
        }
    EXPECT_THROW(pictureHeadTypes(trace, test::openModel("genesis")->model->config()),
                 engine::InputError);
}

} // namespace
} // namespace attnviz::lesson
