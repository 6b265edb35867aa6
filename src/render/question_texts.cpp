#include "render/question_texts.h"

#include "lesson/step_view.h"
#include "render/display_words.h"
#include "render/text_resource.h"

namespace attnviz::render {
namespace {

TextResource questionFile(const lesson::LessonStep& step)
{
    const QString key =
        QString::fromLatin1(step.key.data(), static_cast<qsizetype>(step.key.size()));
    return readTextResource({QStringLiteral(":/questions/%1.txt").arg(key)});
}

} // namespace

QuestionText questionText(lesson::StepQuestion question, const lesson::Walkthrough& w)
{
    // The values are written by the lesson layer in English ("3 keys", "head 2", "none"); the
    // tokens among them are the user's own text and stay as typed.
    for (auto& [name, value] : question.values)
        if (name.find("oken") == std::string::npos)
            value = displayed(value).toStdString();
    const TextResource file = questionFile(lesson::kLessonSteps.at(question.step));
    const std::string_view kindName = lesson::questionKindName(question.kind);
    const QString prefix =
        QString::fromLatin1(kindName.data(), static_cast<qsizetype>(kindName.size()));
    const auto field = [&](const char* name) {
        const QString text = file.fields.value(prefix + QLatin1Char('.') + QLatin1String(name));
        return QString::fromStdString(lesson::fillSizes(question.fill(text.toStdString()), w));
    };
    return {field("question"), field("hint"), field("explanation")};
}

} // namespace attnviz::render
