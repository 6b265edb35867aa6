#pragma once

#include "engine/attention_mistakes.h"

#include <QString>

namespace attnviz::render {

/// The words of a common mistake, read from resources/mistakes/<name>.txt: a title, the mistaken
/// line of code with its fix, and an explanation in HTML that ends with how to recognise it.
struct MistakeText {
    QString title;
    QString code;
    QString explanation;
};

MistakeText mistakeText(engine::AttentionMistake mistake);

} // namespace attnviz::render
