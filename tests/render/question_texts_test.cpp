// The question files of "Predict, then reveal" (#12): every kind a step lists has its words,
// and every placeholder in them is filled from the question or the walkthrough's sizes.
#include "lesson/model_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"
#include "model/model_fixtures.h"
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
    // The softmax asks where a row looks, and, of a trained model, which head is a sink.
    const auto softmax = lesson::kLessonSteps[*lesson::lessonStepIndex("softmax")].questions;
    EXPECT_EQ(std::vector(softmax.begin(), softmax.end()),
              (std::vector<lesson::QuestionKind>{lesson::QuestionKind::StrongestKey,
                                                 lesson::QuestionKind::FirstTokenShare}));
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
    // And a trained model's block, whose heads have a sink to find.
    const auto run = std::make_shared<const lesson::ModelRun>(lesson::runModelOnText(
        test::openModel("modern"),
        {.text = "And God said, Let there be light: and there was light. And God saw the light."}));
    const QRegularExpression placeholder(QStringLiteral("\\{[A-Za-z]+\\}"));
    std::vector<std::shared_ptr<const lesson::Walkthrough>> walkthroughs;
    for (const auto& settings : {self, cross, modern})
        walkthroughs.push_back(lesson::computePlayground(settings));
    walkthroughs.push_back(lesson::walkthroughForBlock(run, {1, engine::Block::MaskedSelf, -1}));
    for (const auto& w : walkthroughs) {
        const bool trained = std::holds_alternative<lesson::ModelBlockSource>(w->source);
        for (const lesson::LessonStepIndex i : lesson::shownLessonSteps(*w->trace))
            for (const lesson::QuestionKind kind : lesson::kLessonSteps[i].questions) {
                SCOPED_TRACE(std::string(lesson::kLessonSteps[i].key) + " " +
                             std::string(lesson::questionKindName(kind)));
                const auto q = lesson::stepQuestion(*w, i, kind, 0, 5);
                // What only some blocks have: a sink (trained heads), a cache (causal
                // self-attention), a reach (a window).
                const bool applies = (kind != lesson::QuestionKind::FirstTokenShare || trained) &&
                    (kind != lesson::QuestionKind::CacheBytes ||
                     (w->description().mask.causal && !w->crossAttention)) &&
                    (kind != lesson::QuestionKind::WindowReach ||
                     w->description().mask.slidingWindow);
                if (!applies) {
                    EXPECT_FALSE(q);
                    continue;
                }
                ASSERT_TRUE(q) << "every question that applies can be answered";
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
