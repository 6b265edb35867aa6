// The question files of "Predict, then reveal" (#12): every kind a step lists has its words,
// and every placeholder in them is filled from the question or the walkthrough's sizes.
#include "lesson/playground.h"
#include "render/question_texts.h"

#include <gtest/gtest.h>

#include <QRegularExpression>

namespace attnviz::render {
namespace {

TEST(QuestionTexts, TheStepsThatComputeSomethingAskAQuestion)
{
    for (const lesson::LessonStep& step : lesson::kLessonSteps) {
        SCOPED_TRACE(std::string(step.key));
        const std::span<const lesson::QuestionKind> kinds = step.questions;
        // the input step shows what comes in; every other step computes something to predict
        EXPECT_EQ(kinds.empty(), step.key == "input");
    }
    const auto softmax = lesson::kLessonSteps[*lesson::lessonStepIndex("softmax")].questions;
    EXPECT_EQ(std::vector(softmax.begin(), softmax.end()),
              std::vector<lesson::QuestionKind>{lesson::QuestionKind::StrongestKey});
}

TEST(QuestionTexts, EveryKindListedHasItsWordsWithEveryPlaceholderFilled)
{
    lesson::PlaygroundSettings self;
    self.mask = lesson::MaskKind::Causal;
    lesson::PlaygroundSettings cross;
    cross.keyValueSentences = {"a small black dog"};
    // Today's attention: shared K/V heads, rotary positions and a window ask their steps too.
    lesson::PlaygroundSettings modern = self;
    modern.keyValueHeads = 2;
    modern.positions = lesson::PositionKind::Rotary;
    modern.slidingWindow = 3;
    const QRegularExpression placeholder(QStringLiteral("\\{[A-Za-z]+\\}"));
    for (const auto& settings : {self, cross, modern}) {
        const auto w = lesson::computePlayground(settings);
        for (const lesson::LessonStepIndex i : lesson::shownLessonSteps(*w->trace))
            for (const lesson::QuestionKind kind : lesson::kLessonSteps[i].questions) {
                SCOPED_TRACE(std::string(lesson::kLessonSteps[i].key) + " " +
                             std::string(lesson::questionKindName(kind)));
                const auto q = lesson::stepQuestion(*w, i, kind, 0, 5);
                ASSERT_TRUE(q) << "a playground walkthrough can answer every question";
                const QuestionText text = questionText(*q, *w);
                for (const QString& part : {text.question, text.hint, text.explanation}) {
                    EXPECT_FALSE(part.isEmpty());
                    EXPECT_FALSE(part.contains(placeholder)) << part.toStdString();
                }
                // the explanation gives the answer
                EXPECT_TRUE(text.explanation.contains(QString::fromStdString(q->correct().label)) ||
                            text.explanation.contains(QString::fromStdString(q->value("key"))))
                    << text.explanation.toStdString();
            }
    }
}

TEST(QuestionTexts, TheSoftmaxQuestionNamesTheRowAndTheExplanationItsWeight)
{
    const auto w = lesson::computePlayground(lesson::PlaygroundSettings{});
    const auto softmax = *lesson::lessonStepIndex("softmax");
    const auto q = lesson::stepQuestion(*w, softmax, lesson::QuestionKind::StrongestKey, 0, 2);
    ASSERT_TRUE(q);
    const QuestionText text = questionText(*q, *w);
    EXPECT_TRUE(text.question.contains(QStringLiteral("query %1 (“%2”)")
                                           .arg(q->query)
                                           .arg(QString::fromStdString(q->value("token")))))
        << text.question.toStdString();
    EXPECT_TRUE(text.question.contains(QStringLiteral("head %1").arg(q->head)));
    EXPECT_TRUE(text.explanation.contains(
        QStringLiteral("a weight of %1").arg(QString::fromStdString(q->value("value")))))
        << text.explanation.toStdString();
}

} // namespace
} // namespace attnviz::render
