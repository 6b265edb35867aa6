// Finite inputs and weights whose results overflow 32-bit floats: the forward pass refuses at the
// step where values first stop being finite, whichever steps the trace keeps, and never hands
// back NaN weights (which a heatmap shows as rows summing to "0.000").
#include "engine/multi_head_attention.h"
#include "engine/non_finite.h"
#include "engine/random_case.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionKeep;
using engine::AttentionStep;
using engine::MultiHeadAttention;
using engine::NonFiniteError;
using ::testing::HasSubstr;

RandomCase smallCase()
{
    std::mt19937 random(3);
    return makeRandomCase({.batch = 2, .queries = 5, .keys = 5, .heads = 2}, random);
}

/// The step named by the error a forward pass raises, or "none".
std::string overflowingStep(const RandomCase& c, const AttentionKeep& keep,
                            const engine::AttentionMask& mask = {}, bool causal = false)
{
    AttentionDescription d = AttentionDescription::fromWeights(c.weights, c.heads);
    d.mask.causal = causal;
    try {
        engine::AttentionOptions options;
        options.keep = keep;
        MultiHeadAttention(c.weights, d).forward(c.query, c.key, c.value, mask, options);
    } catch (const NonFiniteError& e) {
        return e.step();
    }
    return "none";
}

TEST(NonFinite, ScoresThatOverflowAreRefusedWhetherKeptOrNot)
{
    RandomCase c = smallCase();
    c.weights.wQ *= 3e19f;
    c.weights.wK *= 3e19f;
    EXPECT_EQ(overflowingStep(c, AttentionKeep::all()), "scores");
    EXPECT_EQ(overflowingStep(c, AttentionKeep::only({AttentionStep::Weights})), "scores");
    EXPECT_EQ(overflowingStep(c, AttentionKeep::only({AttentionStep::Weights}), {}, true),
              "scores");
}

TEST(NonFinite, TheFirstStepThatOverflowsIsNamed)
{
    RandomCase projections = smallCase();
    // v_proj = x W_vᵀ overflows (8 · 3e38) before any score exists
    projections.weights.wV.setConstant(3e38f);
    projections.weights.bV.reset();
    std::fill(projections.value.data(), projections.value.data() + projections.value.size(), 1.0f);
    EXPECT_EQ(overflowingStep(projections, AttentionKeep::all()), "v_proj");

    RandomCase output = smallCase();
    output.weights.wO *= 3e38f;
    output.weights.bO.reset();
    EXPECT_EQ(overflowingStep(output, AttentionKeep::all()), "output");

    RandomCase intact = smallCase();
    EXPECT_EQ(overflowingStep(intact, AttentionKeep::all()), "none");
}

// Blocked scores are −∞ on purpose, and a fully blocked row has zero weights: neither is an
// overflow.
TEST(NonFinite, BlockedScoresAreNotOverflows)
{
    const RandomCase c = smallCase();
    engine::AttentionMask mask;
    mask.validLengths = engine::AttentionMask::ValidLengths{{0, 3}, false};
    EXPECT_EQ(overflowingStep(c, AttentionKeep::all(), mask, true), "none");
}

TEST(NonFinite, TheSentenceNamesThePlaceTheStepAndTheValue)
{
    const NonFiniteError e =
        NonFiniteError("scores", "+Inf").within("decoder layer 3, masked_self block");
    EXPECT_STREQ(e.what(),
                 "Decoder layer 3, masked_self block: the scores step overflowed 32-bit "
                 "floats (a value is +Inf), so every step after it would be NaN; the "
                 "weights or the input are too large to compute with.");
    EXPECT_THAT(NonFiniteError("q_proj", "NaN").what(), HasSubstr("The q_proj step overflowed"));
    const float values[] = {1.0f, -std::numeric_limits<float>::infinity(), 2.0f};
    EXPECT_EQ(engine::firstNonFinite(values, 3), "-Inf");
    EXPECT_EQ(engine::firstNonFinite(values, 1), std::nullopt);
}

} // namespace
} // namespace attnviz::test
