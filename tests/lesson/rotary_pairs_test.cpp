// #25.1 drawn: lesson::rotaryPairs reads one query's and one key's pairs of features from the
// trace. Each pair is turned by position × frequency (checked here with cos and sin in double),
// keeps its length, and the pairs' products add up to the trace's score; with every position
// moved on, the vectors turn further while the angle between query and key, and the score, stay.
// The angle map holds position × frequency wrapped to (−π, π].
#include "engine/input_error.h"
#include "lesson/playground.h"
#include "lesson/rotary_pairs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace attnviz::lesson {
namespace {

PlaygroundSettings rotarySettings()
{
    PlaygroundSettings s;
    s.querySentences = {"the cat sat on the mat", "a dog ran far away"};
    s.positions = PositionKind::Rotary;
    s.heads = 4;
    s.keyValueHeads = 2;
    s.mask = MaskKind::Causal;
    return s;
}

double angleOf(std::array<float, 2> v)
{
    return std::atan2(double(v[1]), double(v[0]));
}

double wrapped(double a)
{
    return std::remainder(a, 2 * std::numbers::pi);
}

TEST(RotaryPairs, EachPairTurnsByPositionTimesFrequencyAndSumsToTheScore)
{
    const auto w = computePlayground(rotarySettings());
    ASSERT_TRUE(w);
    const std::optional<RotaryPairs> p = rotaryPairs(*w, 1, 3, 4, 1, 0);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->keyValueHead, 1);
    EXPECT_EQ(p->queryPosition, 4);
    EXPECT_EQ(p->keyPosition, 1);
    ASSERT_EQ(static_cast<int>(p->pairs.size()), w->dk() / 2);
    double sum = p->unturned;
    for (const RotaryPair& pair : p->pairs) {
        const double f = std::pow(w->description().rotary->theta,
                                  -2.0 * pair.index / w->description().rotatedSize());
        EXPECT_NEAR(pair.frequency, f, 1e-12);
        const double c = std::cos(4 * f), s = std::sin(4 * f);
        EXPECT_NEAR(pair.queryTurned[0], pair.query[0] * c - pair.query[1] * s, 1e-5);
        EXPECT_NEAR(pair.queryTurned[1], pair.query[1] * c + pair.query[0] * s, 1e-5);
        EXPECT_NEAR(std::hypot(pair.keyTurned[0], pair.keyTurned[1]),
                    std::hypot(pair.key[0], pair.key[1]), 1e-5);
        sum += pair.product;
    }
    EXPECT_NEAR(sum, p->score, 1e-5);
    EXPECT_EQ(p->score, p->unshiftedScore);
}

TEST(RotaryPairs, MovingEveryPositionTurnsTheVectorsButKeepsTheScore)
{
    const auto w = computePlayground(rotarySettings());
    const std::optional<RotaryPairs> here = rotaryPairs(*w, 0, 1, 5, 2, 0);
    const std::optional<RotaryPairs> there = rotaryPairs(*w, 0, 1, 5, 2, 300);
    ASSERT_TRUE(here && there);
    EXPECT_EQ(there->queryPosition, 305);
    EXPECT_EQ(there->keyPosition, 302);
    EXPECT_NEAR(there->score, here->score, 1e-5);
    EXPECT_EQ(there->unshiftedScore, here->score);
    // Pair 0 turns one radian a position: 300 more radians for both, the angle between the same.
    const RotaryPair& a = here->pairs[0];
    const RotaryPair& b = there->pairs[0];
    EXPECT_GT(std::abs(wrapped(angleOf(b.queryTurned) - angleOf(a.queryTurned))), 0.1);
    EXPECT_NEAR(wrapped(angleOf(b.queryTurned) - angleOf(b.keyTurned)),
                wrapped(angleOf(a.queryTurned) - angleOf(a.keyTurned)), 1e-4);
}

TEST(RotaryPairs, AnglesAreWrappedPositionTimesFrequency)
{
    const auto w = computePlayground(rotarySettings());
    for (const std::int64_t shift : {0, 7}) {
        const std::optional<Heatmap> h = rotaryAngles(*w, 0, shift);
        ASSERT_TRUE(h);
        EXPECT_EQ(h->rows(), 6);
        EXPECT_EQ(h->cols(), w->dk() / 2);
        for (int i = 0; i < h->rows(); ++i)
            for (int p = 0; p < h->cols(); ++p) {
                const double f = std::pow(10000.0, -2.0 * p / w->dk());
                EXPECT_NEAR(h->value(i, p), wrapped(double(i + shift) * f), 1e-6) << i << ", " << p;
                EXPECT_LE(std::abs(h->value(i, p)), std::numbers::pi + 1e-6);
            }
        EXPECT_EQ(h->matrix.rowLabels[1], "cat");
    }
}

TEST(RotaryPairs, NoneWithoutRotaryPositionsAndRefusedOutsideTheTrace)
{
    PlaygroundSettings s = rotarySettings();
    s.positions = PositionKind::Sinusoidal;
    const auto plain = computePlayground(s);
    EXPECT_FALSE(rotaryPairs(*plain, 0, 0, 1, 0, 0));
    EXPECT_FALSE(rotaryAngles(*plain, 0));
    const auto w = computePlayground(rotarySettings());
    EXPECT_THROW(rotaryPairs(*w, 0, 4, 1, 0, 0), engine::InputError);
    EXPECT_THROW(rotaryPairs(*w, 0, 0, 9, 0, 0), engine::InputError);
    EXPECT_THROW(rotaryPairs(*w, 2, 0, 1, 0, 0), engine::InputError);
}

} // namespace
} // namespace attnviz::lesson
