// Impossible configurations and inputs that do not fit: each is refused with one sentence that
// names the offending tensor, and the trace passed in is left untouched.
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/random_case.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionMask;
using engine::InputError;
using engine::MultiHeadAttention;
using ::testing::HasSubstr;

std::string constructionError(const engine::AttentionWeights& w, int heads)
{
    try {
        MultiHeadAttention m(w, AttentionDescription::fromWeights(w, heads));
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

RandomCase validCase();

// Runs a forward pass that should fail on a trace already filled by a valid run (as the app
// reuses one), and checks that every step of that trace is exactly as it was.
std::string forwardError(const RandomCase& c, const AttentionMask& mask = {})
{
    const RandomCase valid = validCase();
    engine::AttentionTrace trace;
    MultiHeadAttention(valid.weights, AttentionDescription::fromWeights(valid.weights, valid.heads))
        .forward(valid.query, valid.key, valid.value, {}, trace);
    const engine::AttentionTrace before = trace;
    try {
        MultiHeadAttention(c.weights, AttentionDescription::fromWeights(c.weights, c.heads))
            .forward(c.query, c.key, c.value, mask, trace);
    } catch (const InputError& e) {
        for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable) {
            const engine::Tensor& now = trace.step(info.step);
            const engine::Tensor& then = before.step(info.step);
            EXPECT_EQ(now.axes(), then.axes())
                << "step " << info.name << " was reshaped before the error";
            EXPECT_TRUE(std::equal(now.values().begin(), now.values().end(), then.values().begin(),
                                   then.values().end()))
                << "step " << info.name << " was written before the error";
        }
        EXPECT_EQ(trace.sizes, before.sizes);
        return e.what();
    }
    return "no error";
}

RandomCase validCase()
{
    std::mt19937 random(1);
    return makeRandomCase({.batch = 2,
                           .queries = 3,
                           .keys = 4,
                           .dq = 6,
                           .dk = 5,
                           .dv = 7,
                           .heads = 2,
                           .pqk = 3,
                           .pv = 2,
                           .po = 5},
                          random);
}

TEST(AttentionErrors, ValidCaseRuns)
{
    EXPECT_EQ(forwardError(validCase()), "no error");
}

TEST(AttentionErrors, HeadsMustBePositive)
{
    EXPECT_THAT(constructionError(validCase().weights, 0), HasSubstr("num_heads is 0"));
}

TEST(AttentionErrors, ProjectionRowsMustSplitIntoHeads)
{
    EXPECT_THAT(constructionError(validCase().weights, 4),
                HasSubstr("w_q has 6 rows, which 4 heads cannot share equally"));
    RandomCase c = validCase();
    c.weights.wV = engine::RowMatrix::Ones(5, 7);
    c.weights.wO = engine::RowMatrix::Ones(5, 5);
    c.weights.bV.reset();
    EXPECT_THAT(constructionError(c.weights, 2), HasSubstr("w_v has 5 rows"));
}

TEST(AttentionErrors, KeyProjectionMustMatchQueryProjection)
{
    RandomCase c = validCase();
    c.weights.wK = engine::RowMatrix::Ones(4, 5);
    EXPECT_THAT(constructionError(c.weights, 2), HasSubstr("w_k has 4 rows; expected 6"));
}

TEST(AttentionErrors, OutputProjectionMustReadAllHeads)
{
    RandomCase c = validCase();
    c.weights.wO = engine::RowMatrix::Ones(5, 3);
    EXPECT_THAT(constructionError(c.weights, 2), HasSubstr("w_o has 3 columns; expected 4"));
}

TEST(AttentionErrors, BiasLengthMustMatchProjection)
{
    RandomCase c = validCase();
    c.weights.bK = Eigen::RowVectorXf::Zero(5);
    EXPECT_THAT(constructionError(c.weights, 2), HasSubstr("b_k has 5 values; expected 6"));
}

TEST(AttentionErrors, EmptyWeightIsRefused)
{
    RandomCase c = validCase();
    c.weights.wO = engine::RowMatrix(0, 4);
    EXPECT_THAT(constructionError(c.weights, 2), HasSubstr("w_o has shape [0, 4]"));
}

TEST(AttentionErrors, InputWidthMustMatchWeights)
{
    RandomCase c = validCase();
    c.key = engine::Tensor({{"batch", 2}, {"key", 4}, {"feature", 6}});
    EXPECT_THAT(forwardError(c),
                HasSubstr("key has width 6; expected 5 to match the columns of w_k"));
}

TEST(AttentionErrors, InputMustHaveThreeDimensions)
{
    RandomCase c = validCase();
    c.query = engine::Tensor({{"query", 3}, {"feature", 6}});
    EXPECT_THAT(forwardError(c), HasSubstr("query has 2 dimensions; expected 3"));
}

TEST(AttentionErrors, BatchSizesMustAgree)
{
    RandomCase c = validCase();
    c.value = engine::Tensor({{"batch", 1}, {"key", 4}, {"feature", 7}});
    EXPECT_THAT(forwardError(c), HasSubstr("value has batch size 1; expected 2"));
}

TEST(AttentionErrors, EveryKeyNeedsOneValue)
{
    RandomCase c = validCase();
    c.value = engine::Tensor({{"batch", 2}, {"key", 5}, {"feature", 7}});
    EXPECT_THAT(forwardError(c), HasSubstr("value has 5 tokens; expected 4"));
}

TEST(AttentionErrors, ZeroLengthSequenceIsRefused)
{
    RandomCase c = validCase();
    c.query = engine::Tensor({{"batch", 2}, {"query", 0}, {"feature", 6}});
    EXPECT_THAT(forwardError(c), HasSubstr("query has a zero-sized dimension"));
}

TEST(AttentionErrors, ValidLengthsMustCoverTheBatch)
{
    AttentionMask mask;
    mask.validLengths = AttentionMask::ValidLengths{{1, 2, 3}, false};
    EXPECT_THAT(forwardError(validCase(), mask),
                HasSubstr("valid_lens holds 3 lengths; expected 2"));
    mask.validLengths = AttentionMask::ValidLengths{{1, 2, 3, 1, 2}, true};
    EXPECT_THAT(forwardError(validCase(), mask), HasSubstr("expected 6"));
}

TEST(AttentionErrors, NegativeValidLengthIsRefused)
{
    AttentionMask mask;
    mask.validLengths = AttentionMask::ValidLengths{{1, 2, 3, 1, -2, 0}, true};
    EXPECT_THAT(forwardError(validCase(), mask), HasSubstr("valid_lens[1, 1] is -2"));
}

TEST(AttentionErrors, ExplicitMaskMustMatchQueriesAndKeys)
{
    AttentionMask mask;
    mask.explicitMask = AttentionMask::Explicit{std::vector<std::uint8_t>(12, 1), true};
    EXPECT_THAT(forwardError(validCase(), mask), HasSubstr("mask holds 12 values; expected 24"));
}

} // namespace
} // namespace attnviz::test
