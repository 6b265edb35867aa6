#pragma once

#include "engine/attention_mistakes.h"
#include "lesson/walkthrough.h"

#include <memory>
#include <string>
#include <variant>

namespace attnviz::lesson {

/// The same module on the same inputs as `right`, computed with `mistake` made: a walkthrough of
/// its own, so every view and export can show it beside the correct one. Its mask is the one the
/// mistaken pass applied (the cells drawn as blocked are its −∞ cells). A walkthrough without
/// inputs or weights (an import, a block of a long run that kept only some steps) gives the
/// reason instead.
std::variant<std::shared_ptr<const Walkthrough>, std::string> mistakenWalkthrough(
    const Walkthrough& right, engine::AttentionMistake mistake);

/// The step that shows a mistake best: the weights for every mistake made up to the softmax
/// (that is where a student looks), else the first step it changes.
engine::AttentionStep stepShowingMistake(engine::AttentionMistake mistake);

/// The largest |difference| between the two walkthroughs' outputs over their common columns
/// (a missing output projection changes the width); +∞ when NaN reached the output.
double largestOutputChange(const Walkthrough& right, const Walkthrough& wrong);

} // namespace attnviz::lesson
