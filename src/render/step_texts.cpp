#include "render/step_texts.h"

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
    return {text.fields.value(QStringLiteral("title")), text.fields.value(QStringLiteral("label")),
            text.fields.value(QStringLiteral("formula")), text.body};
}

} // namespace attnviz::render
