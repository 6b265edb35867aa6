#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/step_questions.h"
#include "lesson/walkthrough.h"

#include <QString>

#include <vector>

namespace attnviz::render {

/// The words of one question, with its numbers and the walkthrough's sizes filled in (plain
/// text, not HTML: tokens are shown as typed).
struct QuestionText {
    QString question; ///< "Which key will query 3 (“on”) attend to most in head 1?"
    QString hint; ///< how to answer
    QString explanation; ///< the answer with the trace's numbers behind it
};

/// From the fields `<kind>.question`, `<kind>.hint` and `<kind>.explanation` of the step's
/// question file; `{query}`-style placeholders come from the question, `{dk}`-style sizes from
/// the walkthrough (lesson::fillSizes).
QuestionText questionText(lesson::StepQuestion question, const lesson::Walkthrough& w);

} // namespace attnviz::render
