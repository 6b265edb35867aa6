#include "render/step_texts.h"

#include <QFile>

// The step texts are compiled into the static attnviz_render library, whose resources are not
// registered automatically.
static void registerStepTexts()
{
    Q_INIT_RESOURCE(attnviz);
}

namespace attnviz::render {
namespace {

StepText parse(const QString& content)
{
    // Format: "title: ...", "label: ...", "formula: ...", a line "---", then the explanation.
    StepText text;
    const qsizetype split = content.indexOf(QStringLiteral("\n---\n"));
    for (const QString& line : content.left(split).split(QLatin1Char('\n'))) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        const QString key = line.left(colon).trimmed(), value = line.mid(colon + 1).trimmed();
        if (key == QLatin1String("title"))
            text.title = value;
        else if (key == QLatin1String("label"))
            text.label = value;
        else if (key == QLatin1String("formula"))
            text.formula = value;
    }
    text.explanation = split < 0 ? QString() : content.mid(split + 5).trimmed();
    return text;
}

} // namespace

StepText stepText(const lesson::LessonStep& step, const lesson::Walkthrough* w)
{
    static const bool registered = (registerStepTexts(), true);
    (void)registered;
    const QString key =
        QString::fromLatin1(step.key.data(), static_cast<qsizetype>(step.key.size()));
    QStringList candidates;
    if (w && std::holds_alternative<lesson::ModelBlockSource>(w->source))
        candidates << QStringLiteral(":/steps/%1_in_model.txt").arg(key);
    candidates << QStringLiteral(":/steps/%1.txt").arg(key);
    for (const QString& path : candidates) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly | QIODevice::Text))
            return parse(QString::fromUtf8(file.readAll()));
    }
    return {key, key, {}, {}};
}

} // namespace attnviz::render
