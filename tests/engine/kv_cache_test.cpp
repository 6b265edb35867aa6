// Decoding with a KV cache (MultiHeadAttention::forwardWithCache) against the full causal pass:
//  * over random causal modules (grouped K/V heads, rotary positions, ALiBi, sliding windows, an
//    online softmax), a prefill followed by steps of one or more tokens gives traces whose every
//    step equals the rows of one pass over all the tokens: queries and score rows of the new
//    tokens, keys and values of every token so far;
//  * the cache grows by the new tokens' keys and values and never changes what it held;
//  * what cannot be cached is refused in one sentence, leaving the cache as it was;
//  * the cache's size in bytes follows 2 · layers · H_kv · d · bytes per token.
#include "engine/attention_description.h"
#include "engine/attention_paths.h"
#include "engine/attention_trace.h"
#include "engine/input_error.h"
#include "engine/key_value_cache.h"
#include "engine/multi_head_attention.h"
#include "engine/non_finite.h"
#include "engine/random_case.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionStep;
using engine::AttentionTrace;
using engine::InputError;
using engine::KeyValueCache;
using engine::MultiHeadAttention;
using engine::Tensor;
using ::testing::HasSubstr;

std::int64_t uniform(std::int64_t low, std::int64_t high, std::mt19937& random)
{
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

struct Problem {
    MultiHeadAttention module;
    Tensor tokens; ///< [1, N, D]
    std::string label;
};

Problem randomCausalProblem(std::mt19937& random)
{
    CaseShape s;
    s.queries = s.keys = uniform(1, 40, random);
    s.dq = s.dk = s.dv = uniform(1, 12, random);
    s.heads = static_cast<int>(uniform(1, 4, random));
    s.kvHeads = s.heads % 2 == 0 && uniform(0, 1, random) ? s.heads / 2 : s.heads;
    s.pqk = 2 * uniform(1, 4, random);
    s.pv = uniform(1, 6, random);
    s.po = uniform(1, 8, random);
    s.bias = uniform(0, 1, random) == 1;
    RandomCase r = makeRandomCase(s, random, 2.0f);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, s.heads, s.kvHeads);
    d.mask.causal = true;
    std::string label = "N=" + std::to_string(s.keys) + " H=" + std::to_string(s.heads) + "/" +
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
    if (uniform(0, 2, random) == 0) {
        d.mask.slidingWindow = uniform(1, s.keys, random);
        label += " window=" + std::to_string(*d.mask.slidingWindow);
    }
    if (uniform(0, 4, random) == 0) {
        d.onlineSoftmaxTile = uniform(1, 8, random);
        label += " tile=" + std::to_string(*d.onlineSoftmaxTile);
    }
    // Self-attention: the query input is the key and value input.
    return {MultiHeadAttention(std::move(r.weights), d), std::move(r.query), label};
}

// `t` cut to [from, from + count) along `axis`.
Tensor slice(const Tensor& t, std::size_t axis, std::int64_t from, std::int64_t count)
{
    std::vector<engine::Axis> axes = t.axes();
    const std::int64_t n = axes[axis].size;
    axes[axis].size = count;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < axis; ++a)
        outer *= axes[a].size;
    for (std::size_t a = axis + 1; a < axes.size(); ++a)
        inner *= axes[a].size;
    Tensor out(axes);
    for (std::int64_t o = 0; o < outer; ++o)
        std::copy_n(t.data() + (o * n + from) * inner, count * inner,
                    out.data() + o * count * inner);
    return out;
}

// The part of a full pass's step that a cached step over tokens [n, n + m) computes: the new
// queries' rows, every key so far (and the online softmax's tiles over those keys: the later
// ones hold keys the causal mask blocks for these rows).
Tensor expectedPart(const AttentionTrace& full, AttentionStep step, std::int64_t n, std::int64_t m,
                    std::int64_t tiles)
{
    const Tensor& t = full.step(step);
    const engine::AttentionStepInfo& info = engine::stepInfo(step);
    const std::string_view axes = info.axes;
    const std::size_t rowAxis = info.perHead ? 2 : 1;
    if (axes.find("query") != std::string_view::npos) {
        Tensor rows = slice(t, rowAxis, n, m);
        if (axes.ends_with("tile"))
            return slice(rows, 3, 0, tiles);
        return info.scoreShaped ? slice(rows, 3, 0, n + m) : rows;
    }
    return slice(t, rowAxis, 0, n + m); // a key-side step: keys 0 … n + m − 1
}

TEST(KeyValueCache, CachedStepsEqualTheRowsOfOneFullPass)
{
    std::mt19937 random(2511);
    for (int trial = 0; trial < 60; ++trial) {
        const Problem p = randomCausalProblem(random);
        const std::int64_t N = p.tokens.dim(1);
        const engine::AttentionPath path = kEveryPath[trial % kEveryPath.size()];
        const AttentionTrace full =
            p.module.forward(p.tokens, p.tokens, p.tokens, {}, onPath(path));
        KeyValueCache cache;
        std::int64_t n = 0;
        while (n < N) {
            // A prefill of several tokens first, then steps of one (now and then two).
            const std::int64_t m = n == 0 ? uniform(1, N, random)
                                          : std::min<std::int64_t>(uniform(1, 2, random), N - n);
            SCOPED_TRACE(p.label + " tokens " + std::to_string(n) + "+" + std::to_string(m) + ", " +
                         pathName(path));
            const KeyValueCache before = cache;
            AttentionTrace step;
            p.module.forwardWithCache(slice(p.tokens, 1, n, m), cache, step, onPath(path));
            EXPECT_EQ(step.path, path);
            EXPECT_EQ(step.queryLength(), m);
            EXPECT_EQ(step.keyLength(), n + m);
            for (const AttentionStep s : step.computedSteps())
                EXPECT_TRUE(tensorsNear(step.step(s), expectedPart(full, s, n, m, step.tileCount()),
                                        1e-5, 1e-5))
                    << engine::stepName(s);
            // The cache grew by the new tokens and kept what it held, bit for bit.
            ASSERT_EQ(cache.tokens(), n + m);
            if (n > 0) {
                const Tensor kept = slice(cache.keys.kProj, 1, 0, n);
                EXPECT_TRUE(std::equal(kept.values().begin(), kept.values().end(),
                                       before.keys.kProj.values().begin()));
                const Tensor keptValues = slice(cache.keys.vProj, 1, 0, n);
                EXPECT_TRUE(std::equal(keptValues.values().begin(), keptValues.values().end(),
                                       before.keys.vProj.values().begin()));
            }
            EXPECT_EQ(cache.keys.kRotated.rank() != 0, p.module.description().rotary.has_value());
            // The cache holds the key side only.
            EXPECT_EQ(cache.keys.qProj.rank(), 0);
            EXPECT_EQ(cache.keys.weights.rank(), 0);
            n += m;
        }
    }
}

TEST(KeyValueCache, WindowBlocksWhatSlidOutOfIt)
{
    std::mt19937 random(7);
    CaseShape s;
    s.queries = s.keys = 6;
    RandomCase r = makeRandomCase(s, random);
    AttentionDescription d = AttentionDescription::fromWeights(r.weights, s.heads, 0);
    d.mask.causal = true;
    d.mask.slidingWindow = 3;
    const MultiHeadAttention module(std::move(r.weights), d);
    KeyValueCache cache;
    AttentionTrace step;
    module.forwardWithCache(slice(r.query, 1, 0, 5), cache, step);
    module.forwardWithCache(slice(r.query, 1, 5, 1), cache, step);
    // Token 5 sees keys 3, 4 and 5 only.
    for (std::int64_t h = 0; h < step.numHeads(); ++h)
        for (std::int64_t j = 0; j < 6; ++j)
            EXPECT_EQ(step.weights.at({0, h, 0, j}) == 0.0f, j < 3) << "head " << h << " key " << j;
}

TEST(KeyValueCache, RefusesWhatCannotBeCachedAndKeepsTheCache)
{
    std::mt19937 random(11);
    CaseShape s;
    s.queries = s.keys = 4;
    RandomCase r = makeRandomCase(s, random);
    AttentionDescription causal = AttentionDescription::fromWeights(r.weights, s.heads, 0);
    causal.mask.causal = true;
    const MultiHeadAttention module(r.weights, causal);
    KeyValueCache cache;
    AttentionTrace step;
    module.forwardWithCache(slice(r.query, 1, 0, 2), cache, step);
    const KeyValueCache before = cache;
    const auto refused = [&](const MultiHeadAttention& m, const Tensor& tokens,
                             const engine::AttentionOptions& options, const char* words) {
        try {
            m.forwardWithCache(tokens, cache, step, options);
            ADD_FAILURE() << "accepted; expected: " << words;
        } catch (const InputError& e) {
            EXPECT_THAT(e.what(), HasSubstr(words));
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
        EXPECT_EQ(cache.tokens(), before.tokens());
    };
    AttentionDescription open = causal;
    open.mask.causal = false;
    refused(module.describedAs(open), slice(r.query, 1, 2, 1), {}, "causal");
    Tensor two({{"batch", 2}, {"token", 1}, {"feature", s.dq}});
    refused(module, two, {}, "batch size 2");
    engine::AttentionOptions positioned;
    positioned.positions.query = {7};
    refused(module, slice(r.query, 1, 2, 1), positioned, "positions");
    engine::AttentionOptions ablated;
    ablated.ablatedHeads = {9};
    refused(module, slice(r.query, 1, 2, 1), ablated, "head 9");
    Tensor wide({{"batch", 1}, {"token", 1}, {"feature", s.dq + 1}});
    refused(module, wide, {}, "width");
    AttentionDescription turned = causal;
    turned.rotary = engine::RotaryPositions{};
    refused(module.describedAs(turned), slice(r.query, 1, 2, 1), {}, "another shape");

    // A value that stops being finite is refused after the projections: the cache keeps its
    // two tokens.
    Tensor bad = slice(r.query, 1, 2, 1);
    bad.values()[0] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(module.forwardWithCache(bad, cache, step), engine::NonFiniteError);
    EXPECT_EQ(cache.tokens(), 2);
}

TEST(KeyValueCache, BytesFollowTheFormula)
{
    // Llama 3.2 1B: 16 layers, 8 K/V heads of 64, bfloat16: 32 KiB a token.
    EXPECT_EQ(engine::kvCacheBytes(1, 16, 8, 64, 64, 2), 2 * 16 * 8 * 64 * 2);
    EXPECT_EQ(engine::kvCacheBytes(1024, 16, 8, 64, 64, 2), std::int64_t{32} * 1024 * 1024);
    // Keys and values of different sizes count each their own.
    EXPECT_EQ(engine::kvCacheBytes(3, 2, 1, 4, 6, 4), 3 * 2 * 1 * (4 + 6) * 4);
}

} // namespace
} // namespace attnviz::test
