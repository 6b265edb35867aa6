// The lesson-step table is the one description of what a step is (#9): these are the invariants
// everything derived from it relies on.
#include "lesson/lesson_steps.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace attnviz::lesson {
namespace {

TEST(LessonSteps, KeysAreUniqueAndFindTheirStep)
{
    std::set<std::string_view> keys;
    for (LessonStepIndex i = 0; i < kLessonSteps.size(); ++i) {
        EXPECT_TRUE(keys.insert(kLessonSteps[i].key).second) << kLessonSteps[i].key;
        EXPECT_EQ(lessonStepIndex(kLessonSteps[i].key), i);
    }
    EXPECT_EQ(lessonStepIndex("no-such-step"), std::nullopt);
}

TEST(LessonSteps, EveryAttentionStepIsShownBySomeLessonStep)
{
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable) {
        const auto shown = lessonStepShowing(info.step);
        ASSERT_TRUE(shown) << info.name;
        bool found = false;
        for (const TraceView& v : kLessonSteps[*shown].views)
            found = found || v.step == info.step;
        EXPECT_TRUE(found) << info.name;
    }
}

TEST(LessonSteps, ScoreShapedAndPerHeadFollowTheEngineTable)
{
    EXPECT_TRUE(kLessonSteps[*lessonStepIndex("softmax")].scoreShaped());
    EXPECT_TRUE(kLessonSteps[*lessonStepIndex("scores")].perHead());
    EXPECT_FALSE(kLessonSteps[*lessonStepIndex("projections")].perHead());
    EXPECT_FALSE(kLessonSteps[*lessonStepIndex("context")].scoreShaped());
    EXPECT_FALSE(kLessonSteps[*lessonStepIndex("input")].scoreShaped());
    EXPECT_TRUE(kLessonSteps[*lessonStepIndex("split")].alternatives);
}

TEST(AttentionSteps, NamesRoundTripAndTheTableIsInEnumOrder)
{
    for (std::size_t i = 0; i < engine::kAttentionStepTable.size(); ++i) {
        const engine::AttentionStepInfo& info = engine::kAttentionStepTable[i];
        EXPECT_EQ(static_cast<std::size_t>(info.step), i);
        EXPECT_EQ(engine::stepFromName(info.name), info.step);
        EXPECT_EQ(engine::stepInfo(info.step).name, info.name);
    }
    EXPECT_EQ(engine::stepFromName("softmax"), std::nullopt);
}

} // namespace
} // namespace attnviz::lesson
