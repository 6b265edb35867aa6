#pragma once

#include "lesson/lesson_steps.h"

#include <stdexcept>
#include <string>

namespace attnviz::test {

/// The index of a lesson step by its key, as the tests name steps.
inline lesson::LessonStepIndex step(const char* key)
{
    const auto index = lesson::lessonStepIndex(key);
    if (!index)
        throw std::invalid_argument(std::string("no lesson step ") + key);
    return *index;
}

} // namespace attnviz::test
