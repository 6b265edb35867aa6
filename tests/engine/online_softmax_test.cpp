// FlashAttention's online softmax (engine/online_softmax.h) against the plain pass:
//  * over random modules (grouped K/V heads, rotary positions, ALiBi, causal masks with windows,
//    valid lengths, explicit masks with fully blocked rows) and tiles from 1 key to more than the
//    row, the tiled pass's weights, context and output equal the plain pass's within 1e-6
//    relative, and its score-shaped steps equal them too;
//  * online_max and online_sum hold, after tile k, the maximum of the masked scores of tiles
//    0 … k and Σ exp(s − m) over them: checked against those definitions computed here in double,
//    and against the stage-by-stage path;
//  * a fully blocked tile leaves m and ℓ as they were, a row blocked so far keeps −∞ and 0;
//  * the replay of one row gives the rescale factors exp(m_old − m_new) and an output that ends
//    at the context row;
//  * what the pass keeps changes no bit of what it computes; impossible tiles are refused.
#include "engine/attention_description.h"
#include "engine/attention_paths.h"
#include "engine/attention_trace.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/non_finite.h"
#include "engine/online_softmax.h"
#include "engine/random_case.h"
#include "engine/thread_count.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionKeep;
using engine::AttentionMask;
using engine::AttentionOptions;
using engine::AttentionStep;
using engine::AttentionTrace;
using engine::InputError;
using engine::MultiHeadAttention;
using engine::Tensor;
using ::testing::HasSubstr;

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

struct Problem {
    MultiHeadAttention module;
    Tensor query, key, value;
    AttentionMask mask;
    std::string label;
};

std::int64_t uniform(std::int64_t low, std::int64_t high, std::mt19937& random)
{
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

Problem randomProblem(std::mt19937& random)
{
    CaseShape s;
    s.batch = uniform(1, 2, random);
    s.queries = uniform(1, 80, random);
    s.keys = uniform(1, 90, random);
    s.dq = uniform(1, 12, random);
    s.dk = s.dq;
    s.dv = s.dq;
    s.heads = static_cast<int>(uniform(1, 4, random));
    s.kvHeads = s.heads % 2 == 0 && uniform(0, 1, random) ? s.heads / 2 : s.heads;
    s.pqk = 2 * uniform(1, 4, random);
    s.pv = uniform(1, 6, random);
    s.po = uniform(1, 8, random);
    RandomCase r = makeRandomCase(s, random, 2.0f);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, s.heads, s.kvHeads);
    std::string label = "B=" + std::to_string(s.batch) + " Nq=" + std::to_string(s.queries) +
        " Nk=" + std::to_string(s.keys) + " H=" + std::to_string(s.heads) + "/" +
        std::to_string(d.keyValueHeads);
    if (uniform(0, 1, random)) {
        d.rotary = engine::RotaryPositions{};
        label += " rotary";
    }
    if (uniform(0, 3, random) == 0) {
        engine::ScoreBias bias;
        for (int h = 0; h < s.heads; ++h)
            bias.slopes.push_back(std::pow(2.0f, -8.0f * static_cast<float>(h + 1) / s.heads));
        d.scoreBias = bias;
        label += " alibi";
    }
    AttentionMask mask;
    if (s.queries == s.keys && uniform(0, 1, random)) {
        d.mask.causal = true;
        label += " causal";
        if (uniform(0, 1, random)) {
            d.mask.slidingWindow = uniform(1, s.keys, random);
            label += " window=" + std::to_string(*d.mask.slidingWindow);
        }
    } else {
        mask = makeRandomMask(s, random);
        if (mask.causal && s.queries != s.keys)
            mask.causal = false;
        label += " random mask";
    }
    return {MultiHeadAttention(std::move(r.weights), d),
            std::move(r.query),
            std::move(r.key),
            std::move(r.value),
            std::move(mask),
            std::move(label)};
}

MultiHeadAttention withTile(const MultiHeadAttention& m, std::int64_t tile)
{
    AttentionDescription d = m.description();
    d.onlineSoftmaxTile = tile;
    return m.describedAs(d);
}

TEST(OnlineSoftmax, TiledPassEqualsThePlainPassForEveryTile)
{
    std::mt19937 random(2025);
    for (int trial = 0; trial < 60; ++trial) {
        const Problem p = randomProblem(random);
        const engine::AttentionPath path = kEveryPath[trial % kEveryPath.size()];
        const AttentionTrace plain =
            p.module.forward(p.query, p.key, p.value, p.mask, onPath(path));
        const std::int64_t Nk = p.key.dim(1);
        for (const std::int64_t tile :
             {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{16}, Nk, Nk + 5}) {
            SCOPED_TRACE(p.label + " tile=" + std::to_string(tile) + ", " + pathName(path));
            const AttentionTrace tiled =
                withTile(p.module, tile).forward(p.query, p.key, p.value, p.mask, onPath(path));
            EXPECT_EQ(tiled.tileCount(), (Nk + tile - 1) / tile);
            for (const AttentionStep step :
                 {AttentionStep::Weights, AttentionStep::Context, AttentionStep::Output})
                EXPECT_TRUE(withinOnePpmOfScale(tiled.step(step), plain.step(step)))
                    << engine::stepName(step);
            for (const AttentionStep step :
                 {AttentionStep::Scores, AttentionStep::Scaled, AttentionStep::Masked})
                EXPECT_TRUE(tensorsNear(tiled.step(step), plain.step(step), 1e-6, 1e-6))
                    << engine::stepName(step);
            EXPECT_EQ(tiled.fullyMaskedRows, plain.fullyMaskedRows);
            EXPECT_FALSE(plain.has(AttentionStep::OnlineMax));
        }
    }
}

TEST(OnlineSoftmax, RunningMaximumAndSumMatchTheirDefinitionAndTheStagePath)
{
    std::mt19937 random(77);
    for (int trial = 0; trial < 40; ++trial) {
        const Problem p = randomProblem(random);
        const std::int64_t tile = uniform(1, p.key.dim(1) + 2, random);
        SCOPED_TRACE(p.label + " tile=" + std::to_string(tile));
        const MultiHeadAttention module = withTile(p.module, tile);
        const AttentionTrace exact =
            module.forward(p.query, p.key, p.value, p.mask, onPath(engine::AttentionPath::Exact));
        for (const engine::AttentionPath path : kEveryPath) {
            SCOPED_TRACE(pathName(path));
            const AttentionTrace t = module.forward(p.query, p.key, p.value, p.mask, onPath(path));
            // The passes' masked scores differ by float roundings, which exp() carries into ℓ.
            EXPECT_TRUE(tensorsNear(t.onlineMax, exact.onlineMax));
            EXPECT_TRUE(tensorsNear(t.onlineSum, exact.onlineSum));
            ASSERT_EQ(t.onlineMax.shape(),
                      (std::vector<std::int64_t>{t.batchSize(), t.numHeads(), t.queryLength(),
                                                 t.tileCount()}));
            // The definitions, not the recurrence: after tile k, m is the largest masked score of
            // keys [0, (k + 1)·tile) and ℓ the sum of exp(s − m) over them.
            for (std::int64_t b = 0; b < t.batchSize(); ++b)
                for (std::int64_t h = 0; h < t.numHeads(); ++h) {
                    const auto masked = t.masked.matrix({b, h});
                    for (std::int64_t i = 0; i < t.queryLength(); ++i)
                        for (std::int64_t k = 0; k < t.tileCount(); ++k) {
                            const std::int64_t end = std::min((k + 1) * tile, t.keyLength());
                            double m = kBlocked;
                            for (std::int64_t j = 0; j < end; ++j)
                                m = std::max(m, static_cast<double>(masked(i, j)));
                            double l = 0;
                            if (m != kBlocked)
                                for (std::int64_t j = 0; j < end; ++j)
                                    l += std::exp(static_cast<double>(masked(i, j)) - m);
                            ASSERT_EQ(t.onlineMax.matrix({b, h})(i, k), static_cast<float>(m))
                                << "m at b=" << b << " h=" << h << " i=" << i << " tile " << k;
                            ASSERT_NEAR(t.onlineSum.matrix({b, h})(i, k), l, 1e-6 * l)
                                << "ℓ at b=" << b << " h=" << h << " i=" << i << " tile " << k;
                        }
                }
        }
    }
}

// One head, one query, keys 0 … 9 in tiles of 2: keys 0–3 blocked, 6–7 blocked.
TEST(OnlineSoftmax, BlockedTilesLeaveTheRunningValuesAsTheyWere)
{
    std::mt19937 random(5);
    CaseShape s;
    s.queries = 1;
    s.keys = 10;
    s.heads = 1;
    RandomCase r = makeRandomCase(s, random);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, 1);
    d.onlineSoftmaxTile = 2;
    AttentionMask mask;
    AttentionMask::Explicit e;
    e.allowed = {0, 0, 0, 0, 1, 1, 0, 0, 1, 1};
    mask.explicitMask = e;
    const AttentionTrace t =
        MultiHeadAttention(r.weights, d).forward(r.query, r.key, r.value, mask);
    const auto m = t.onlineMax.matrix({0, 0}).row(0);
    const auto l = t.onlineSum.matrix({0, 0}).row(0);
    ASSERT_EQ(m.size(), 5);
    EXPECT_EQ(m(0), kBlocked);
    EXPECT_EQ(m(1), kBlocked);
    EXPECT_EQ(l(0), 0.0f);
    EXPECT_EQ(l(1), 0.0f);
    EXPECT_GE(l(2), 1.0f); // the largest key of the tile contributes exp(0)
    EXPECT_EQ(m(3), m(2));
    EXPECT_EQ(l(3), l(2));
    EXPECT_GE(m(4), m(3));
    const auto w = t.weights.matrix({0, 0}).row(0);
    for (const int j : {0, 1, 2, 3, 6, 7})
        EXPECT_EQ(w(j), 0.0f) << j;
    EXPECT_NEAR(w.sum(), 1.0f, 1e-6f);

    // Every key blocked: m stays −∞ and ℓ 0 to the end, and the row attends to nothing.
    std::fill(e.allowed.begin(), e.allowed.end(), std::uint8_t{0});
    mask.explicitMask = e;
    const AttentionTrace none =
        MultiHeadAttention(r.weights, d).forward(r.query, r.key, r.value, mask);
    for (Eigen::Index k = 0; k < 5; ++k) {
        EXPECT_EQ(none.onlineMax.matrix({0, 0})(0, k), kBlocked);
        EXPECT_EQ(none.onlineSum.matrix({0, 0})(0, k), 0.0f);
    }
    EXPECT_TRUE(none.context.matrix({0, 0}).isZero(0));
    EXPECT_TRUE(none.weights.matrix({0, 0}).isZero(0));
}

TEST(OnlineSoftmax, ReplayOfOneRowRescalesAndEndsAtTheContext)
{
    std::mt19937 random(31);
    CaseShape s;
    s.queries = 6;
    s.keys = 11;
    s.heads = 2;
    s.pv = 3;
    RandomCase r = makeRandomCase(s, random, 3.0f);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, 2);
    d.onlineSoftmaxTile = 3;
    const AttentionTrace t = MultiHeadAttention(r.weights, d).forward(r.query, r.key, r.value);
    for (std::int64_t h = 0; h < 2; ++h)
        for (std::int64_t i = 0; i < 6; ++i) {
            const std::vector<engine::OnlineSoftmaxTile> tiles =
                engine::onlineSoftmaxOfRow(t, 0, h, i);
            ASSERT_EQ(tiles.size(), 4u);
            EXPECT_EQ(tiles.back().keys, 2); // 11 = 3 + 3 + 3 + 2
            float previous = kBlocked;
            for (std::size_t k = 0; k < tiles.size(); ++k) {
                const engine::OnlineSoftmaxTile& tile = tiles[k];
                EXPECT_EQ(tile.firstKey, static_cast<std::int64_t>(3 * k));
                EXPECT_EQ(tile.max, std::max(previous, tile.tileMax));
                EXPECT_EQ(tile.max, t.onlineMax.matrix({0, h})(i, static_cast<Eigen::Index>(k)));
                EXPECT_FLOAT_EQ(static_cast<float>(tile.sum),
                                t.onlineSum.matrix({0, h})(i, static_cast<Eigen::Index>(k)));
                const double expected =
                    k == 0 ? 0.0 : std::exp(static_cast<double>(previous) - tile.max);
                EXPECT_DOUBLE_EQ(tile.rescale, expected);
                previous = tile.max;
            }
            const engine::OnlineSoftmaxTile& last = tiles.back();
            for (std::size_t c = 0; c < last.accumulated.size(); ++c)
                EXPECT_NEAR(last.accumulated[c] / last.sum,
                            t.context.matrix({0, h})(i, static_cast<Eigen::Index>(c)), 1e-6);
        }
    EXPECT_THROW(engine::onlineSoftmaxOfRow(t, 0, 2, 0), InputError);
    AttentionDescription plain = d;
    plain.onlineSoftmaxTile.reset();
    const AttentionTrace wholeRows =
        MultiHeadAttention(r.weights, plain).forward(r.query, r.key, r.value);
    EXPECT_THROW(engine::onlineSoftmaxOfRow(wholeRows, 0, 0, 0), InputError);
}

TEST(OnlineSoftmax, WhatIsKeptChangesNoBitAndThreadsChangeNothing)
{
    std::mt19937 random(9);
    for (int trial = 0; trial < 10; ++trial) {
        const Problem p = randomProblem(random);
        const MultiHeadAttention module = withTile(p.module, uniform(1, 9, random));
        SCOPED_TRACE(p.label);
        // The fused pass, whose blocks skip the online stage when nothing keeps its steps.
        const AttentionOptions fused = onPath(engine::AttentionPath::Fused);
        const AttentionTrace all = module.forward(p.query, p.key, p.value, p.mask, fused);
        AttentionOptions few = fused;
        few.keep = AttentionKeep::only({AttentionStep::Context});
        const AttentionTrace some = module.forward(p.query, p.key, p.value, p.mask, few);
        EXPECT_FALSE(some.has(AttentionStep::OnlineMax));
        EXPECT_FALSE(some.has(AttentionStep::Weights));
        EXPECT_EQ(std::memcmp(all.context.data(), some.context.data(),
                              all.context.values().size() * sizeof(float)),
                  0);
        EXPECT_EQ(std::memcmp(all.output.data(), some.output.data(),
                              all.output.values().size() * sizeof(float)),
                  0);
        engine::setThreadCount(1);
        const AttentionTrace one = module.forward(p.query, p.key, p.value, p.mask, fused);
        engine::setThreadCount(0);
        EXPECT_EQ(std::memcmp(all.onlineSum.data(), one.onlineSum.data(),
                              all.onlineSum.values().size() * sizeof(float)),
                  0);
    }
}

TEST(OnlineSoftmax, ImpossibleTilesAreRefusedInOneSentence)
{
    std::mt19937 random(1);
    RandomCase r = makeRandomCase(CaseShape{}, random);
    for (const std::int64_t tile :
         {std::int64_t{0}, std::int64_t{-3}, engine::kMaxOnlineSoftmaxTile + 1}) {
        AttentionDescription d = AttentionDescription::fromWeights(r.weights, 2);
        d.onlineSoftmaxTile = tile;
        try {
            MultiHeadAttention(r.weights, d);
            ADD_FAILURE() << "tile " << tile << " was accepted";
        } catch (const InputError& e) {
            EXPECT_THAT(e.what(),
                        HasSubstr("the online softmax's tile is " + std::to_string(tile) +
                                  " keys; expected 1 to"));
        }
    }
}

TEST(OnlineSoftmax, OverflowIsRefusedAtTheStepThatOverflowed)
{
    std::mt19937 random(4);
    CaseShape s;
    RandomCase r = makeRandomCase(s, random);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, 2);
    d.onlineSoftmaxTile = 3;
    // Projections near 1e20 are finite; their products are not.
    for (Tensor* t : {&r.query, &r.key})
        for (float& v : t->values())
            v = 1e20f;
    try {
        MultiHeadAttention(r.weights, d).forward(r.query, r.key, r.value);
        ADD_FAILURE() << "an overflowing pass was accepted";
    } catch (const engine::NonFiniteError& e) {
        EXPECT_EQ(e.step(), "scores");
    }
}

} // namespace
} // namespace attnviz::test
