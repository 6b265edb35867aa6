#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"

#include <QString>

namespace attnviz::render {

/// The words of a lesson step, read from resources/steps/<key>.txt: a title, a navigator label,
/// a formula with `{B}`-style size placeholders, and an explanation in HTML. For a model's block
/// the file <key>_in_model.txt, where there is one, speaks of the residual stream instead.
struct StepText {
    QString title;
    QString label;
    QString formula;
    QString explanation;
};

StepText stepText(const lesson::LessonStep& step, const lesson::Walkthrough* walkthrough = nullptr);

} // namespace attnviz::render
