#include "engine/attention_paths.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/naive_attention.h"
#include "engine/random_case.h"
#include "engine/thread_count.h"
#include "support/tensor_compare.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionMask;
using engine::AttentionStep;
using engine::AttentionTrace;
using engine::MultiHeadAttention;

void expectSameTrace(const AttentionTrace& actual, const AttentionTrace& expected,
                     const std::string& context)
{
    for (AttentionStep step : engine::kAttentionSteps)
        EXPECT_TRUE(tensorsNear(actual.step(step), expected.step(step)))
            << context << ", step " << engine::stepName(step);
    EXPECT_EQ(actual.fullyMaskedRows, expected.fullyMaskedRows) << context;
}

AttentionTrace run(const RandomCase& c, const AttentionMask& mask = {},
                   engine::AttentionPath path = engine::AttentionPath::Automatic)
{
    const AttentionTrace t =
        MultiHeadAttention(c.weights, AttentionDescription::fromWeights(c.weights, c.heads))
            .forward(c.query, c.key, c.value, mask, onPath(path));
    if (path != engine::AttentionPath::Automatic) {
        EXPECT_EQ(t.path, path) << "the trace names another pass";
    }
    return t;
}

// The same comparison on every pass.
void expectSameOnEveryPath(const RandomCase& c, const AttentionMask& mask,
                           const AttentionTrace& expected, const std::string& context)
{
    for (const engine::AttentionPath path : kEveryPath)
        expectSameTrace(run(c, mask, path), expected, context + ", " + pathName(path));
}

TEST(MultiHeadAttention, RandomShapesMatchNaiveLoops)
{
    std::mt19937 random(2024);
    std::uniform_int_distribution<std::int64_t> small(1, 9), width(1, 12), head(1, 4),
        headSize(1, 5);
    for (int trial = 0; trial < 150; ++trial) {
        CaseShape s;
        s.batch = small(random) % 3 + 1;
        s.queries = small(random);
        s.keys = small(random);
        s.dq = width(random);
        s.dk = width(random);
        s.dv = width(random);
        s.heads = static_cast<int>(head(random));
        s.pqk = headSize(random);
        s.pv = headSize(random);
        s.po = width(random);
        s.bias = trial % 3 != 0;
        const RandomCase c = makeRandomCase(s, random);
        const AttentionMask mask = makeRandomMask(s, random);
        expectSameOnEveryPath(c, mask,
                              naiveAttention(c.query, c.key, c.value, c.weights, c.heads, mask),
                              "trial " + std::to_string(trial));
    }
}

TEST(MultiHeadAttention, QueryRowsAcrossBlockBoundariesMatchNaiveLoops)
{
    // More query rows than the engine processes in one block, and not a multiple of it.
    std::mt19937 random(7);
    CaseShape s{.batch = 2,
                .queries = 150,
                .keys = 70,
                .dq = 16,
                .dk = 12,
                .dv = 10,
                .heads = 3,
                .pqk = 5,
                .pv = 4,
                .po = 9};
    const RandomCase c = makeRandomCase(s, random);
    AttentionMask mask = makeRandomMask(s, random);
    mask.causal = true;
    expectSameOnEveryPath(
        c, mask, naiveAttention(c.query, c.key, c.value, c.weights, c.heads, mask), "150 queries");
    // Not vacuous: the fused pass takes 64 rows a block, so 150 rows cross two boundaries, and
    // the causal mask gives each block its own live keys.
    ASSERT_GT(s.queries, 128);
}

TEST(MultiHeadAttention, AnyDivisorOfTheScoresMatchesNaiveLoops)
{
    std::mt19937 random(11);
    const CaseShape s{.batch = 2, .queries = 5, .keys = 7, .heads = 2, .pqk = 6, .pv = 3};
    const RandomCase c = makeRandomCase(s, random);
    const AttentionMask mask = makeRandomMask(s, random);
    for (const double divisor : {1.0, 0.5, 2.449, 30.0}) {
        AttentionDescription d = AttentionDescription::fromWeights(c.weights, c.heads);
        d.scoreScale = 1.0 / divisor;
        for (const engine::AttentionPath path : kEveryPath)
            expectSameTrace(
                MultiHeadAttention(c.weights, d)
                    .forward(c.query, c.key, c.value, mask, onPath(path)),
                naiveAttention(c.query, c.key, c.value, c.weights, c.heads, mask, divisor),
                "divisor " + std::to_string(divisor) + ", " + pathName(path));
    }
}

TEST(MultiHeadAttention, AScaleThatIsNotAPositiveNumberIsRefused)
{
    std::mt19937 random(3);
    const RandomCase c = makeRandomCase({}, random);
    for (const double scale : {0.0, -1.0, double(NAN), double(INFINITY), 1e-320}) {
        AttentionDescription d = AttentionDescription::fromWeights(c.weights, c.heads);
        d.scoreScale = scale;
        try {
            MultiHeadAttention(c.weights, d).forward(c.query, c.key, c.value);
            ADD_FAILURE() << scale << " was accepted";
        } catch (const engine::InputError& e) {
            EXPECT_NE(std::string(e.what()).find("expected a positive number"), std::string::npos)
                << e.what();
        }
    }
}

TEST(MultiHeadAttention, WeightRowsSumToOne)
{
    std::mt19937 random(1);
    const RandomCase c = makeRandomCase({.batch = 2, .queries = 6, .keys = 9}, random);
    const AttentionTrace t = run(c);
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < c.heads; ++h)
            for (Eigen::Index i = 0; i < 6; ++i)
                EXPECT_NEAR(t.weights.matrix({b, h}).row(i).sum(), 1.0f, 1e-6f);
}

TEST(MultiHeadAttention, FullyMaskedRowIsZeroNotNaN)
{
    std::mt19937 random(3);
    const RandomCase c = makeRandomCase({.batch = 2, .queries = 3, .keys = 4}, random);
    AttentionMask mask;
    mask.validLengths = AttentionMask::ValidLengths{{2, 0, 4, 1, 0, 3}, true};
    for (const engine::AttentionPath path : kEveryPath) {
        SCOPED_TRACE(pathName(path));
        const AttentionTrace t = run(c, mask, path);
        const std::vector<engine::MaskedRow> expectedRows = {{0, 1}, {1, 1}};
        EXPECT_EQ(t.fullyMaskedRows, expectedRows);
        for (const auto& r : expectedRows)
            for (std::int64_t h = 0; h < c.heads; ++h) {
                EXPECT_TRUE(t.weights.matrix({r.batch, h}).row(r.query).isZero(0));
                EXPECT_TRUE(t.context.matrix({r.batch, h}).row(r.query).isZero(0));
                EXPECT_TRUE(std::isinf(t.masked.at({r.batch, h, r.query, 0})));
            }
        for (float x : t.output.values())
            EXPECT_TRUE(std::isfinite(x));
    }
}

TEST(MultiHeadAttention, BlockedWeightsAreExactlyZeroAndMaskedIsMinusInfinity)
{
    std::mt19937 random(4);
    const RandomCase c = makeRandomCase({.queries = 5, .keys = 5}, random);
    AttentionMask mask;
    mask.causal = true;
    for (const engine::AttentionPath path : kEveryPath) {
        SCOPED_TRACE(pathName(path));
        const AttentionTrace t = run(c, mask, path);
        for (std::int64_t h = 0; h < c.heads; ++h)
            for (std::int64_t i = 0; i < 5; ++i)
                for (std::int64_t j = 0; j < 5; ++j) {
                    if (j > i) {
                        EXPECT_EQ(t.weights.at({0, h, i, j}), 0.0f);
                        EXPECT_EQ(t.masked.at({0, h, i, j}), -INFINITY);
                    } else {
                        EXPECT_GT(t.weights.at({0, h, i, j}), 0.0f);
                        EXPECT_EQ(t.masked.at({0, h, i, j}), t.scaled.at({0, h, i, j}));
                    }
                }
    }
}

TEST(MultiHeadAttention, LargeLogitsDoNotOverflow)
{
    // Scaled scores in the thousands: exp() of them overflows float unless the row max is
    // subtracted first.
    std::mt19937 random(5);
    const RandomCase c = makeRandomCase({.queries = 4, .keys = 6}, random, 300.0f);
    for (const engine::AttentionPath path : kEveryPath) {
        const AttentionTrace t = run(c, {}, path);
        EXPECT_GT(t.scaled.matrix({0, 0}).cwiseAbs().maxCoeff(), 500.0f);
        for (float x : t.weights.values())
            EXPECT_TRUE(std::isfinite(x) && x >= 0.0f && x <= 1.0f);
        expectSameTrace(t, naiveAttention(c.query, c.key, c.value, c.weights, c.heads, {}),
                        "large logits, " + pathName(path));
    }
}

TEST(MultiHeadAttention, SelfAttentionIsCrossAttentionWithOneSequence)
{
    std::mt19937 random(6);
    RandomCase c = makeRandomCase({.queries = 5, .keys = 5}, random);
    c.key = c.query;
    c.value = c.query;
    const AttentionTrace t = run(c);
    EXPECT_TRUE(tensorsNear(
        t.qProj, naiveAttention(c.query, c.query, c.query, c.weights, c.heads, {}).qProj));
    EXPECT_EQ(t.weights.dim(2), t.weights.dim(3));
}

TEST(MultiHeadAttention, HeadsOwnContiguousFeatureColumns)
{
    std::mt19937 random(8);
    const RandomCase c =
        makeRandomCase({.queries = 3, .keys = 4, .heads = 3, .pqk = 2, .pv = 5}, random);
    const AttentionTrace t = run(c);
    for (std::int64_t h = 0; h < 3; ++h) {
        EXPECT_EQ(t.qHeads.matrix({0, h}), t.qProj.matrix({0}).middleCols(h * 2, 2));
        EXPECT_EQ(t.vHeads.matrix({0, h}), t.vProj.matrix({0}).middleCols(h * 5, 5));
        EXPECT_EQ(t.concat.matrix({0}).middleCols(h * 5, 5), t.context.matrix({0, h}));
    }
}

TEST(MultiHeadAttention, ReusedTraceEqualsFreshTrace)
{
    std::mt19937 random(9);
    const RandomCase big = makeRandomCase({.batch = 2, .queries = 9, .keys = 7}, random);
    const RandomCase small = makeRandomCase({.queries = 3, .keys = 2, .heads = 1}, random);
    AttentionTrace reused;
    MultiHeadAttention(big.weights, AttentionDescription::fromWeights(big.weights, big.heads))
        .forward(big.query, big.key, big.value, {}, reused);
    MultiHeadAttention(small.weights, AttentionDescription::fromWeights(small.weights, small.heads))
        .forward(small.query, small.key, small.value, {}, reused);
    expectSameTrace(reused, run(small), "reused");
}

TEST(MultiHeadAttention, ThreadCountDoesNotChangeResults)
{
    std::mt19937 random(10);
    const RandomCase c = makeRandomCase({.batch = 2,
                                         .queries = 100,
                                         .keys = 80,
                                         .dq = 32,
                                         .dk = 32,
                                         .dv = 32,
                                         .heads = 4,
                                         .pqk = 8,
                                         .pv = 8,
                                         .po = 32},
                                        random);
    // The float passes spread blocks and products over the threads (the exact one runs on one).
    for (const engine::AttentionPath path :
         {engine::AttentionPath::Fused, engine::AttentionPath::ByStages}) {
        engine::setThreadCount(1);
        const AttentionTrace one = run(c, {}, path);
        engine::setThreadCount(2);
        const AttentionTrace two = run(c, {}, path);
        engine::setThreadCount(0);
        for (AttentionStep step : engine::kAttentionSteps)
            EXPECT_TRUE(tensorsNear(one.step(step), two.step(step), 1e-6, 1e-6))
                << pathName(path) << ", " << engine::stepName(step);
    }
}

TEST(MultiHeadAttention, StepsHaveNamedAxes)
{
    std::mt19937 random(11);
    const RandomCase c = makeRandomCase({.batch = 2, .queries = 5, .keys = 7, .heads = 4}, random);
    const AttentionTrace t = run(c);
    EXPECT_EQ(t.weights.shapeString(), "(batch=2, head=4, query=5, key=7)");
    EXPECT_EQ(t.kHeads.shapeString(), "(batch=2, head=4, key=7, d_k=4)");
    EXPECT_EQ(t.context.shapeString(), "(batch=2, head=4, query=5, d_v=4)");
    EXPECT_EQ(t.output.shapeString(), "(batch=2, query=5, feature=8)");
    EXPECT_EQ(engine::stepName(AttentionStep::QHeads), "q_heads");
}

} // namespace
} // namespace attnviz::test
