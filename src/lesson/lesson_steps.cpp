#include "lesson/lesson_steps.h"

#include <algorithm>
#include <stdexcept>

namespace attnviz::lesson {

bool LessonStep::scoreShaped() const
{
    return !views.empty() && std::all_of(views.begin(), views.end(), [](const TraceView& v) {
        return engine::stepInfo(v.step).scoreShaped;
    });
}

bool LessonStep::perHead() const
{
    return !views.empty() && std::all_of(views.begin(), views.end(), [](const TraceView& v) {
        return engine::stepInfo(v.step).perHead;
    });
}

bool LessonStep::shownFor(const engine::AttentionTrace& trace) const
{
    return std::all_of(views.begin(), views.end(),
                       [&](const TraceView& v) { return trace.computes(v.step); });
}

std::vector<LessonStepIndex> shownLessonSteps(const engine::AttentionTrace& trace)
{
    std::vector<LessonStepIndex> out;
    for (LessonStepIndex i = 0; i < kLessonSteps.size(); ++i)
        if (kLessonSteps[i].shownFor(trace))
            out.push_back(i);
    return out;
}

LessonStepIndex neighbourLessonStep(const engine::AttentionTrace& trace, LessonStepIndex from,
                                    int direction)
{
    for (auto i = static_cast<std::ptrdiff_t>(from) + direction;
         i >= 0 && i < static_cast<std::ptrdiff_t>(kLessonSteps.size()); i += direction)
        if (kLessonSteps[static_cast<std::size_t>(i)].shownFor(trace))
            return static_cast<LessonStepIndex>(i);
    return from;
}

std::optional<LessonStepIndex> lessonStepIndex(std::string_view key)
{
    for (LessonStepIndex i = 0; i < kLessonSteps.size(); ++i)
        if (kLessonSteps[i].key == key)
            return i;
    return std::nullopt;
}

const LessonStep& lessonStep(LessonStepIndex index)
{
    if (index >= kLessonSteps.size())
        throw std::out_of_range("no lesson step " + std::to_string(index));
    return kLessonSteps[index];
}

std::optional<LessonStepIndex> lessonStepShowing(engine::AttentionStep step)
{
    for (LessonStepIndex i = 0; i < kLessonSteps.size(); ++i)
        for (const TraceView& v : kLessonSteps[i].views)
            if (v.step == step)
                return i;
    return std::nullopt;
}

} // namespace attnviz::lesson
