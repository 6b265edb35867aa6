#include "render/step_texts.h"

#include "lesson/step_view.h"
#include "render/text_resource.h"

#include <QRegularExpression>

#include <algorithm>

namespace attnviz::render {
namespace {

// Whether `condition` of an "[if …]" line holds for the walkthrough shown (none: only negations
// hold).
bool holds(const QString& condition, const lesson::Walkthrough* w)
{
    if (condition.startsWith(QLatin1Char('!')))
        return !holds(condition.mid(1), w);
    if (!w)
        return false;
    const auto* model = std::get_if<lesson::ModelBlockSource>(&w->source);
    if (condition == QLatin1String("playground"))
        return std::holds_alternative<lesson::PlaygroundSource>(w->source);
    if (condition == QLatin1String("model"))
        return model != nullptr;
    if (condition.startsWith(QLatin1String("model=")))
        return model && QString::fromStdString(model->model) == condition.mid(6);
    if (condition == QLatin1String("cross"))
        return w->crossAttention;
    if (condition == QLatin1String("batch"))
        return w->trace && w->batch() > 1;
    if (condition == QLatin1String("window"))
        return w->mask.window.has_value();
    // The treatments of today's models, as the module's description names them.
    if (condition == QLatin1String("rotary"))
        return w->trace && w->description().rotary.has_value();
    if (condition == QLatin1String("unit_offset"))
        return w->trace && w->description().queryKeyNorm &&
            w->description().queryKeyNorm->unitOffset;
    if (condition == QLatin1String("sinks"))
        return w->trace && w->description().learnedSinks;
    return false;
}

// A text speaks only of what the source shown has: a line that starts with "[if c1, c2]" is
// kept when every condition holds (the playground has no decoder; only the reverse model
// mirrors its input).
QString linesFor(const QString& body, const lesson::Walkthrough* w)
{
    static const QRegularExpression condition(QStringLiteral("^\\[if ([^\\]]*)\\]\\s*"));
    QStringList kept;
    for (const QString& line : body.split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch m = condition.match(line);
        if (!m.hasMatch()) {
            kept << line;
            continue;
        }
        const QStringList all = m.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (std::all_of(all.begin(), all.end(),
                        [&](const QString& c) { return holds(c.trimmed(), w); }))
            kept << line.mid(m.capturedLength());
    }
    return kept.join(QLatin1Char('\n'));
}

// The step's text files, the most particular first.
QStringList candidatesFor(const QString& key, const lesson::Walkthrough* w)
{
    QStringList candidates;
    // Cross-attention has its own words where it differs (no causal mask; the decoder's shift).
    const bool cross = w && w->crossAttention;
    const bool inModel = w && std::holds_alternative<lesson::ModelBlockSource>(w->source);
    // Shared K/V heads change what the split and the scores say; a scale of the module's own
    // (Gemma's query_pre_attn_scalar) what the scaled step says; a norm of the whole projection
    // (OLMo 2) what the normed step says.
    if (w && w->trace && w->description().groupedKeyValues())
        candidates << QStringLiteral(":/steps/%1_grouped.txt").arg(key);
    if (w && w->trace && w->description().scoreScale)
        candidates << QStringLiteral(":/steps/%1_own_scale.txt").arg(key);
    if (w && w->trace && w->description().queryKeyNorm &&
        w->description().queryKeyNorm->scope == engine::QueryKeyNorm::Scope::WholeProjection)
        candidates << QStringLiteral(":/steps/%1_whole_projection.txt").arg(key);
    if (cross && inModel)
        candidates << QStringLiteral(":/steps/%1_cross_in_model.txt").arg(key);
    if (cross)
        candidates << QStringLiteral(":/steps/%1_cross.txt").arg(key);
    // A Vision Transformer's first layer makes its tokens from patches of the picture; later
    // layers read the residual stream as any model's do.
    if (const auto* model = inModel ? &std::get<lesson::ModelBlockSource>(w->source) : nullptr;
        model && model->picture && model->layer == 0)
        candidates << QStringLiteral(":/steps/%1_picture_in_model.txt").arg(key);
    if (inModel)
        candidates << QStringLiteral(":/steps/%1_in_model.txt").arg(key);
    candidates << QStringLiteral(":/steps/%1.txt").arg(key);
    return candidates;
}

QString keyOf(const lesson::LessonStep& step)
{
    return QString::fromLatin1(step.key.data(), static_cast<qsizetype>(step.key.size()));
}

} // namespace

StepText stepHeading(const lesson::LessonStep& step, const lesson::Walkthrough* w)
{
    const QString key = keyOf(step);
    const TextResource text = readTextResource(candidatesFor(key, w));
    if (text.fields.isEmpty())
        return {key, key, {}, {}};
    return {text.fields.value(QStringLiteral("title")),
            text.fields.value(QStringLiteral("label")),
            text.fields.value(QStringLiteral("formula")),
            {}};
}

StepText stepText(const lesson::LessonStep& step, const lesson::Walkthrough* w)
{
    const QString key = keyOf(step);
    const TextResource text = readTextResource(candidatesFor(key, w));
    if (text.fields.isEmpty())
        return {key, key, {}, {}};
    // Sizes in the explanation ("{H} heads") are this module's; the formula's are filled where
    // it is shown (lesson::stepFormula), since a model's input step writes its own.
    const QString body = linesFor(text.body, w);
    const QString explanation =
        w && w->trace ? QString::fromStdString(lesson::fillSizes(body.toStdString(), *w)) : body;
    return {text.fields.value(QStringLiteral("title")), text.fields.value(QStringLiteral("label")),
            text.fields.value(QStringLiteral("formula")), explanation};
}

} // namespace attnviz::render
