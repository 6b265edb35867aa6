// Experiments ▸ Predict, then reveal (#12), in the real window offscreen: the mode is switched
// on from the menu, a step is covered by its question until one click answers it, and the
// verdict and score are the trace's.
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/prediction_prompt.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/window/main_window.h"
#include "app_test_steps.h"
#include "window_test_support.h"

#include <QAction>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace attnviz::app;

class PredictionTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    PredictionPrompt* prompt() const { return m_window->findChild<PredictionPrompt*>(); }
    StepPanel* steps() const { return m_window->stepPanel(); }

    QAction* menuAction(const QString& text) const
    {
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->text().remove(QLatin1Char('&')) == text)
                return a;
        return nullptr;
    }

    // Whether the widget at the centre of the heatmaps is the prompt (or inside it): the step is
    // hidden under the question.
    bool heatmapsCovered() const
    {
        QWidget* grid = steps()->grid();
        const QPoint centre = grid->mapTo(steps(), grid->rect().center());
        QWidget* top = steps()->childAt(centre);
        return top && (top == prompt() || prompt()->isAncestorOf(top));
    }

    void openWindow()
    {
        attnviz::lesson::PlaygroundSettings settings;
        settings.mask = attnviz::lesson::MaskKind::Causal;
        m_window = attnviz::test::openPlayground(settings);
        QVERIFY(m_window);
    }

    void switchModeOn()
    {
        QAction* action = menuAction(QStringLiteral("Predict, then reveal"));
        QVERIFY(action);
        QVERIFY(action->isCheckable());
        if (!action->isChecked())
            action->trigger();
        QVERIFY(prompt()->modeOn());
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        QSettings().remove(QStringLiteral("experiments/predictThenReveal"));
        openWindow();
        // the step the window opens on is not asked about yet: begin on the input step
        steps()->setStep(attnviz::test::step("input"));
    }

    void cleanup() { m_window.reset(); }

    void withTheModeOffEveryStepShowsAtOnce()
    {
        QVERIFY(!prompt()->modeOn());
        for (const char* key : {"softmax", "context", "output"}) {
            steps()->setStep(attnviz::test::step(key));
            QApplication::processEvents();
            QVERIFY(!prompt()->isVisible());
            QVERIFY(!prompt()->verdict()->isVisible());
            QVERIFY(!heatmapsCovered());
            QVERIFY(!steps()->grid()->visibleViews().empty());
        }
    }

    void aRightAnswerOnTheSoftmaxStepRevealsItWithTheTracesWeight()
    {
        switchModeOn();
        steps()->setStep(attnviz::test::step("softmax"));
        QApplication::processEvents();
        QVERIFY(prompt()->isVisible());
        QVERIFY(prompt()->asking());
        QVERIFY(heatmapsCovered());
        const auto& q = *prompt()->question();
        QVERIFY(q.kind == attnviz::lesson::QuestionKind::StrongestKey);
        QVERIFY2(prompt()->questionText().contains(
                     QStringLiteral("query %1 (“%2”)")
                         .arg(q.query)
                         .arg(QString::fromStdString(
                             m_window->walkthrough()->queryTokens[0][std::size_t(q.query)]))),
                 qPrintable(prompt()->questionText()));
        QVERIFY(prompt()->questionText().contains(QStringLiteral("head %1").arg(q.head)));

        // The key the trace's row gives the most weight, found here from the trace itself.
        const auto row = m_window->walkthrough()->trace->weights.matrix({0, q.head}).row(q.query);
        Eigen::Index best = 0;
        row.maxCoeff(&best);
        const QString token =
            QString::fromStdString(m_window->walkthrough()->keyTokens[0][std::size_t(best)]);
        QPushButton* button = nullptr;
        for (QPushButton* b : prompt()->choiceButtons())
            if (b->text().endsWith(QStringLiteral("%1 “%2”").arg(best).arg(token)))
                button = b;
        QVERIFY2(button, "the strongest key is offered");
        QTest::mouseClick(button, Qt::LeftButton);

        QTRY_VERIFY(!prompt()->isVisible());
        QVERIFY(!heatmapsCovered());
        QVERIFY(prompt()->verdict()->isVisible());
        const QString verdict = prompt()->verdictText();
        QVERIFY2(verdict.startsWith(QStringLiteral("✔ Right")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("a weight of %1").arg(row(best), 0, 'f', 2)) ||
                     verdict.contains(QStringLiteral("a weight of %1").arg(row(best), 0, 'f', 3)),
                 qPrintable(verdict));
        QCOMPARE(prompt()->rightAnswers(), 1);
        QCOMPARE(prompt()->answers(), 1);
        QVERIFY(prompt()->scoreText().contains(QStringLiteral("1 of 1 right")));
        // the step itself is shown: the softmax heatmaps, one per head
        QCOMPARE(steps()->grid()->visibleViews().size(),
                 std::size_t(m_window->walkthrough()->heads()));

        // Leaving and coming back does not ask again; the next step asks its own question.
        steps()->next();
        QApplication::processEvents();
        QVERIFY(prompt()->isVisible());
        QCOMPARE(prompt()->question()->step, attnviz::test::step("context"));
        steps()->previous();
        QApplication::processEvents();
        QVERIFY(!prompt()->isVisible());
    }

    void aWrongAnswerByKeyboardIsCountedAndTheAnswerShown()
    {
        switchModeOn();
        steps()->setStep(attnviz::test::step("masked"));
        QApplication::processEvents();
        QVERIFY(prompt()->asking());
        const auto q = *prompt()->question();
        QVERIFY(q.kind == attnviz::lesson::QuestionKind::VisibleKeys);
        // causal: query i sees keys 0…i
        QCOMPARE(q.correct().value, q.query + 1);
        const std::size_t wrong = q.answer == 0 ? 1 : 0;
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key(Qt::Key_1 + int(wrong)));
        QTRY_VERIFY(!prompt()->asking());
        const QString verdict = prompt()->verdictText();
        QVERIFY2(verdict.startsWith(QStringLiteral("✘ Not this time")), qPrintable(verdict));
        QVERIFY(verdict.contains(QString::fromStdString(q.correct().label)));
        QCOMPARE(prompt()->rightAnswers(), 0);
        QCOMPARE(prompt()->answers(), 1);
        QVERIFY(prompt()->scoreText().contains(QStringLiteral("0 of 1 right")));
    }

    void theHeadQuestionIsAnsweredByTheEnginesAblation()
    {
        switchModeOn();
        steps()->setStep(attnviz::test::step("context"));
        QApplication::processEvents();
        const auto q = *prompt()->question();
        QVERIFY(q.kind == attnviz::lesson::QuestionKind::ImportantHead);
        QCOMPARE(int(prompt()->choiceButtons().size()), m_window->walkthrough()->heads());
        const std::vector<double> changes =
            attnviz::lesson::headSwitchOffChanges(*m_window->walkthrough(), 0);
        const int best = int(std::max_element(changes.begin(), changes.end()) - changes.begin());
        QCOMPARE(q.correct().value, best);
        QTest::mouseClick(prompt()->choiceButtons().at(int(q.answer)), Qt::LeftButton);
        QTRY_VERIFY(prompt()->verdict()->isVisible());
        QVERIFY2(
            prompt()->verdictText().contains(QStringLiteral("Switching off head %1").arg(best)),
            qPrintable(prompt()->verdictText()));
    }

    void revealingWithoutAnsweringCountsNothing()
    {
        switchModeOn();
        steps()->setStep(attnviz::test::step("split"));
        QApplication::processEvents();
        QVERIFY(prompt()->asking());
        QTest::mouseClick(prompt()->revealButton(), Qt::LeftButton);
        QTRY_VERIFY(!prompt()->asking());
        QVERIFY(prompt()->verdictText().startsWith(QStringLiteral("The answer: (batch=1")));
        QCOMPARE(prompt()->answers(), 0);
        QVERIFY(!heatmapsCovered());
    }

    void aNewWalkthroughWhileAskingAsksAboutItsNumbers()
    {
        switchModeOn();
        steps()->setStep(attnviz::test::step("softmax"));
        QApplication::processEvents();
        QVERIFY(prompt()->asking());
        auto settings = m_window->inputPanel()->settings();
        settings.querySentences = {"a dog chased the red ball home"};
        m_window->inputPanel()->setSettings(settings);
        settle();
        QVERIFY(prompt()->asking());
        const auto q = *prompt()->question();
        const auto row = m_window->walkthrough()->trace->weights.matrix({0, q.head}).row(q.query);
        Eigen::Index best = 0;
        row.maxCoeff(&best);
        QCOMPARE(q.correct().value, int(best));
        QCOMPARE(m_window->walkthrough()->queryTokens[0].size(), std::size_t(7));
    }

    void theModeIsKeptBetweenSessionsAndOffHidesEverything()
    {
        switchModeOn();
        QVERIFY(QSettings().value(QStringLiteral("experiments/predictThenReveal")).toBool());
        m_window.reset();
        openWindow();
        QVERIFY(prompt()->modeOn());
        steps()->setStep(attnviz::test::step("scaled"));
        QApplication::processEvents();
        QVERIFY(prompt()->asking());
        QVERIFY(prompt()->question()->kind == attnviz::lesson::QuestionKind::Divisor);
        menuAction(QStringLiteral("Predict, then reveal"))->trigger();
        QVERIFY(!prompt()->modeOn());
        QVERIFY(!prompt()->isVisible());
        QVERIFY(!heatmapsCovered());
        QVERIFY(!QSettings().value(QStringLiteral("experiments/predictThenReveal")).toBool());
    }
};

QTEST_MAIN(PredictionTest)
#include "prediction_test.moc"
