#include "render/step_texts.h"

#include "lesson/step_view.h"
#include "render/text_resource.h"

namespace attnviz::render {

StepText stepText(const lesson::LessonStep& step, const lesson::Walkthrough* w)
{
    const QString key =
        QString::fromLatin1(step.key.data(), static_cast<qsizetype>(step.key.size()));
    QStringList candidates;
    // Cross-attention has its own words where it differs (no causal mask; the decoder's shift).
    const bool cross = w && w->crossAttention;
    const bool inModel = w && std::holds_alternative<lesson::ModelBlockSource>(w->source);
    // Shared K/V heads change what the split and the scores say.
    if (w && w->trace && w->description().groupedKeyValues())
        candidates << QStringLiteral(":/steps/%1_grouped.txt").arg(key);
    if (cross && inModel)
        candidates << QStringLiteral(":/steps/%1_cross_in_model.txt").arg(key);
    if (cross)
        candidates << QStringLiteral(":/steps/%1_cross.txt").arg(key);
    if (inModel)
        candidates << QStringLiteral(":/steps/%1_in_model.txt").arg(key);
    candidates << QStringLiteral(":/steps/%1.txt").arg(key);
    const TextResource text = readTextResource(candidates);
    if (text.fields.isEmpty())
        return {key, key, {}, {}};
    // Sizes in the explanation ("{H} heads") are this module's; the formula's are filled where
    // it is shown (lesson::stepFormula), since a model's input step writes its own.
    const QString explanation = w && w->trace
        ? QString::fromStdString(lesson::fillSizes(text.body.toStdString(), *w))
        : text.body;
    return {text.fields.value(QStringLiteral("title")), text.fields.value(QStringLiteral("label")),
            text.fields.value(QStringLiteral("formula")), explanation};
}

} // namespace attnviz::render
