#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"

#include <QString>

namespace attnviz::render {

/// The words of a lesson step, read from resources/steps/<key>.txt: a title, a navigator label,
/// a formula with `{B}`-style size placeholders, and an explanation in HTML. For cross-attention
/// the file <key>_cross.txt, and for a model's block <key>_in_model.txt, where there is one, come
/// first (the cross block's own reasons; the residual stream); a model's cross block reads
/// <key>_cross_in_model.txt before both. Within a text, a line of the explanation that starts
/// with "[if c1, c2]" is shown only when each condition holds: playground, model, model=<name>,
/// cross, batch (more than one item), each negated by "!".
struct StepText {
    QString title;
    QString label;
    QString formula;
    QString explanation;
};

StepText stepText(const lesson::LessonStep& step, const lesson::Walkthrough* walkthrough = nullptr);

/// The title, label and formula of the text stepText would read, without filling the
/// explanation (which may run the module again): what a navigator button shows.
StepText stepHeading(const lesson::LessonStep& step, const lesson::Walkthrough* walkthrough);

} // namespace attnviz::render
