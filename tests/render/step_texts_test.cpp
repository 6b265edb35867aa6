// The words of a step follow the block shown: a model's masked self-attention does not speak of
// cross-attention, its cross-attention does, and the playground keeps its own first step.
#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"
#include "render/step_texts.h"
#include "render/text_resource.h"

#include <QDir>
#include <QRegularExpression>

#include <QFile>
#include <QLocale>

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

lesson::Walkthrough modelBlock(engine::Block block)
{
    lesson::Walkthrough w;
    lesson::ModelBlockSource source;
    source.block = block;
    w.source = source;
    w.crossAttention = block == engine::Block::Cross;
    return w;
}

const lesson::LessonStep& inputStep()
{
    return lesson::kLessonSteps[*lesson::lessonStepIndex("input")];
}

TEST(StepTexts, AModelsMaskedSelfAttentionInputSpeaksOfItsOwnBlock)
{
    const lesson::Walkthrough masked = modelBlock(engine::Block::MaskedSelf);
    const StepText text = stepText(inputStep(), &masked);
    EXPECT_FALSE(text.explanation.contains("cross-attention")) << text.explanation.toStdString();
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.explanation.contains("self-attention"));
}

TEST(StepTexts, AModelsCrossAttentionInputNamesBothItsInputs)
{
    const lesson::Walkthrough cross = modelBlock(engine::Block::Cross);
    const StepText text = stepText(inputStep(), &cross);
    EXPECT_TRUE(text.explanation.contains("cross-attention"));
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.formula.contains("encoder"));
}

TEST(StepTexts, ThePlaygroundsInputIsEmbeddingsPlusPositions)
{
    const StepText text = stepText(inputStep(), nullptr);
    EXPECT_TRUE(text.title.contains("embeddings")) << text.title.toStdString();
    EXPECT_FALSE(text.explanation.contains("residual stream"));
}

// Every step text has its Chinese translation, with the same fields and the same size
// placeholders ({Nq}, {dk}, …) in its formula, so no step falls back to English.
TEST(StepTexts, EveryStepTextIsTranslatedWithTheSamePlaceholders)
{
    registerTextResources();
    const QStringList files = QDir(":/steps").entryList({"*.txt"}, QDir::Files);
    ASSERT_GE(files.size(), 10);
    static const QRegularExpression placeholder("\\{[A-Za-z]+\\}");
    for (const QString& file : files) {
        const TextResource english = readTextResource({":/steps/" + file});
        QFile translated(":/zh_CN/steps/" + file);
        ASSERT_TRUE(translated.exists()) << file.toStdString() << " has no Chinese translation";
        QLocale::setDefault(QLocale("zh_CN"));
        const TextResource chinese = readTextResource({":/steps/" + file});
        QLocale::setDefault(QLocale("en"));
        EXPECT_EQ(chinese.fields.keys(), english.fields.keys()) << file.toStdString();
        EXPECT_NE(chinese.body, english.body) << file.toStdString();
        QStringList ours, theirs;
        for (auto m = placeholder.globalMatch(english.fields.value("formula")); m.hasNext();)
            ours << m.next().captured();
        for (auto m = placeholder.globalMatch(chinese.fields.value("formula")); m.hasNext();)
            theirs << m.next().captured();
        ours.sort();
        theirs.sort();
        EXPECT_EQ(theirs, ours) << file.toStdString();
    }
}

} // namespace
} // namespace attnviz::render
