// #25.1: the rotary step's proof is the engine's: moving every position on by s turns the
// queries (they change a lot) and leaves the scores as they were (to float rounding); the step's
// text prints those numbers. A module without rotary positions has no such proof.
#include "lesson/playground.h"
#include "lesson/rotary_shift.h"

#include <gtest/gtest.h>

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

TEST(RotaryShift, QueriesTurnAndScoresStay)
{
    const auto w = computePlayground(rotarySettings());
    ASSERT_TRUE(w);
    for (const std::int64_t shift : {1, 17, 1000, 100000}) {
        const std::optional<RotaryShift> r = rotaryShift(*w, shift);
        ASSERT_TRUE(r) << shift;
        EXPECT_EQ(r->shift, shift);
        EXPECT_GT(r->queryChange, 0.05) << shift;
        EXPECT_GT(r->largestScore, 0.1);
        // Angles of positions near 100,000 are exact in double; the float products round.
        EXPECT_LT(r->scoreChange, 1e-5 * r->largestScore + 1e-6) << shift;
    }
}

TEST(RotaryShift, OnlyForRotaryModules)
{
    PlaygroundSettings s = rotarySettings();
    s.positions = PositionKind::Sinusoidal;
    const auto w = computePlayground(s);
    ASSERT_TRUE(w);
    EXPECT_FALSE(rotaryShift(*w, 10));
}

} // namespace
} // namespace attnviz::lesson
