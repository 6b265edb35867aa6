// Experiments in the real window, offscreen (#12): the arithmetic of a cell and the gallery of
// common mistakes, each reached as a user reaches it (a head's context menu, the Experiments
// menu) and checked against the engine's trace.
#include "app/dialogs/cell_arithmetic_dialog.h"
#include "app/experiments/experiments_menu.h"
#include "app/experiments/mistakes_dialog.h"
#include "app/experiments/scaling_dialog.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/window/main_window.h"
#include "app/window/walkthrough_runner.h"
#include "app_test_steps.h"
#include "context_menu.h"
#include "ui_input_panel.h"
#include "ui_mistakes_dialog.h"
#include "ui_scaling_dialog.h"
#include "window_test_support.h"

#include <QAction>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QtTest>

using namespace attnviz::app;

class ExperimentsTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    HeatmapView* view(int index) const { return attnviz::test::shownView(*m_window, index); }

    QAction* menuAction(const QString& text) const
    {
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->text().remove(QLatin1Char('&')) == text)
                return a;
        return nullptr;
    }

    // The number the dialog prints after `label`, e.g. "Sum of the 4 products = 0.123".
    static double numberAfter(const QString& text, const QString& label)
    {
        const qsizetype at = text.indexOf(label);
        if (at < 0)
            return std::nan("");
        QString number = text.mid(at + label.size()).section(QLatin1Char(' '), 0, 0);
        number.replace(QStringLiteral("−"), QStringLiteral("-"));
        while (!number.isEmpty() && !number.back().isDigit())
            number.chop(1); // "0.188433)." ends a sentence
        return number.toDouble();
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        attnviz::lesson::PlaygroundSettings settings;
        settings.mask = attnviz::lesson::MaskKind::Causal;
        m_window = attnviz::test::openPlayground(settings);
        QVERIFY(m_window);
    }

    void cleanup() { m_window.reset(); }

    void aWeightsArithmeticFromTheContextMenuShowsTheTracesNumbers()
    {
        StepPanel* steps = m_window->stepPanel();
        steps->setStep(attnviz::test::step("softmax"));
        HeatmapView* head2 = view(2);
        QVERIFY(attnviz::test::chooseFromContextMenu(head2, head2->cellCentre(4, 1),
                                                     "Show the arithmetic of this cell"));
        CellArithmeticDialog* dialog = steps->cellArithmetic();
        QVERIFY(dialog && dialog->isVisible());
        const auto& t = *m_window->walkthrough()->trace;
        QCOMPARE(dialog->cell().head, 2);
        QCOMPARE(dialog->cell().query, 4);
        QCOMPARE(dialog->cell().column, 1);
        const QString text = dialog->text();
        QVERIFY2(text.contains(QStringLiteral("query 4 “the”")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("key 1 “cat”")));
        // the sum of the products and the final weight are the trace's, to the digits printed
        QVERIFY(std::abs(numberAfter(text, QStringLiteral("products = ")) -
                         t.scores.at({0, 2, 4, 1})) < 1e-4);
        const double weight = t.weights.at({0, 2, 4, 1});
        QVERIFY2(std::abs(numberAfter(text, QStringLiteral("(the trace's weight: ")) - weight) <
                     1e-6,
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("÷ √4")));

        // While it is open, a click on another cell (above the diagonal: blocked) explains that.
        HeatmapView* shown = view(0);
        QTest::mouseClick(shown, Qt::LeftButton, {}, shown->cellCentre(1, 3));
        QTRY_COMPARE(dialog->cell().query, 1);
        QCOMPARE(dialog->cell().column, 3);
        QVERIFY2(dialog->text().contains(QStringLiteral("is blocked")), qPrintable(dialog->text()));
    }

    void theContextStepExplainsAWeightedSumAndOtherStepsOfferNoArithmetic()
    {
        StepPanel* steps = m_window->stepPanel();
        steps->setStep(attnviz::test::step("context"));
        QVERIFY(attnviz::test::chooseFromContextMenu(view(1), view(1)->cellCentre(5, 2),
                                                     "Show the arithmetic of this cell"));
        const QString text = steps->cellArithmetic()->text();
        QVERIFY2(text.contains(QStringLiteral("weighted sum of column 2 of V of K/V head 1")),
                 qPrintable(text));
        const double context = m_window->walkthrough()->trace->context.at({0, 1, 5, 2});
        QVERIFY(std::abs(numberAfter(text, QStringLiteral("(the trace's context: ")) - context) <
                1e-5);

        // A new seed recomputes; the open dialog follows with the same cell of the new trace.
        attnviz::lesson::PlaygroundSettings reseeded = m_window->inputPanel()->settings();
        reseeded.seed = 7;
        m_window->inputPanel()->setSettings(reseeded);
        settle();
        const double recomputed = m_window->walkthrough()->trace->context.at({0, 1, 5, 2});
        QVERIFY(recomputed != context);
        QTRY_VERIFY(std::abs(numberAfter(steps->cellArithmetic()->text(),
                                         QStringLiteral("(the trace's context: ")) -
                             recomputed) < 1e-5);

        // Steps without cell arithmetic do not offer it.
        steps->setStep(attnviz::test::step("projections"));
        QVERIFY(!attnviz::test::chooseFromContextMenu(view(0), view(0)->cellCentre(0, 0),
                                                      "Show the arithmetic of this cell"));
    }

    // #25.6: the softmax tile typed into the playground adds the online step, whose maps are the
    // engine's m and ℓ and whose cells replay the row tile by tile; back to whole rows, it goes.
    void theSoftmaxTileAddsTheOnlineStepAndItsArithmetic()
    {
        QSpinBox* tile = m_window->inputPanel()->ui()->onlineSoftmaxTile;
        const auto before = attnviz::lesson::shownLessonSteps(*m_window->walkthrough()->trace);
        QVERIFY(std::find(before.begin(), before.end(), attnviz::test::step("online")) ==
                before.end());
        tile->setFocus();
        tile->selectAll();
        QTest::keyClicks(tile, QStringLiteral("4"));
        QTest::keyClick(tile, Qt::Key_Enter);
        settle();
        const auto& t = *m_window->walkthrough()->trace;
        QCOMPARE(t.description.onlineSoftmaxTile.value_or(0), 4);
        QCOMPARE(t.tileCount(), 2); // "the cat sat on the mat": 6 keys
        StepPanel* steps = m_window->stepPanel();
        steps->setStep(attnviz::test::step("online"));
        QCOMPARE(steps->step(), attnviz::test::step("online"));
        // Head 1's map of m: query 5, tile 1 is the row's maximum over all keys.
        HeatmapView* head1 = view(1);
        QVERIFY(attnviz::test::chooseFromContextMenu(head1, head1->cellCentre(5, 1),
                                                     "Show the arithmetic of this cell"));
        const QString text = steps->cellArithmetic()->text();
        QVERIFY2(text.contains(QStringLiteral("after tile 1 (keys 4–5)")), qPrintable(text));
        QVERIFY(std::abs(numberAfter(text, QStringLiteral("(the trace's online_max: ")) -
                         t.onlineMax.at({0, 1, 5, 1})) < 1e-5);
        QVERIFY(std::abs(numberAfter(text, QStringLiteral("(the trace's online_sum: ")) -
                         t.onlineSum.at({0, 1, 5, 1})) < 1e-5 * t.onlineSum.at({0, 1, 5, 1}));
        QVERIFY2(text.contains(QStringLiteral("the trace's context row: (")), qPrintable(text));
        // docs/screenshots/51-online-softmax-cell.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_ONLINE_CELL_SHOT"))
            QVERIFY(steps->cellArithmetic()->grab().save(
                qEnvironmentVariable("ATTNVIZ_ONLINE_CELL_SHOT")));
        // Query 1 of a causal mask sees keys 0–1 only: its second tile is all blocked.
        QTest::mouseClick(head1, Qt::LeftButton, {}, head1->cellCentre(1, 1));
        QTRY_COMPARE(steps->cellArithmetic()->cell().query, 1);
        QVERIFY2(steps->cellArithmetic()->text().contains(
                     QStringLiteral("Every key of this tile is blocked")),
                 qPrintable(steps->cellArithmetic()->text()));
        steps->cellArithmetic()->close();

        tile->setValue(0);
        settle();
        QVERIFY(!m_window->walkthrough()->trace->has(attnviz::engine::AttentionStep::OnlineMax));
        QVERIFY(steps->step() != attnviz::test::step("online"));
    }

    void theMistakesGalleryComparesWithTheComputationShown()
    {
        QAction* open = menuAction(QStringLiteral("Common mistakes…"));
        QVERIFY(open);
        open->trigger();
        auto* gallery = m_window->experiments()->window<MistakesDialog>("mistakes");
        QVERIFY(gallery && gallery->isVisible());
        QCOMPARE(gallery->ui().mistakes->count(),
                 static_cast<int>(attnviz::engine::kAttentionMistakeTable.size()));

        gallery->setMistake(attnviz::engine::AttentionMistake::MaskAfterSoftmax);
        QVERIFY(gallery->mistaken());
        QVERIFY(gallery->ui().title->text().contains(QStringLiteral("after the softmax")));
        // the first row of a causal mask keeps only key 0's share of a softmax over all keys
        const QString consequence = gallery->consequenceText();
        QVERIFY2(consequence.contains(QStringLiteral("correct: 1.000, 1.000")),
                 qPrintable(consequence));
        const double firstRow = numberAfter(consequence, QStringLiteral("with the mistake: "));
        QVERIFY2(firstRow < 0.99, qPrintable(consequence));
        QCOMPARE(gallery->ui().right->heatmap().rows(), 6);
        QCOMPARE(gallery->ui().wrong->heatmap().value(0, 3), 0.0f);

        // switching a head off in the main window: the gallery compares with that
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        QVERIFY(attnviz::test::chooseFromContextMenu(view(0), view(0)->rect().center(),
                                                     "Switch head 0 off"));
        settle();
        QTRY_COMPARE(gallery->mistaken()->trace->ablatedHeads, std::vector<int>{0});

        gallery->setMistake(attnviz::engine::AttentionMistake::NoOutputProjection);
        QCOMPARE(gallery->ui().wrong->heatmap().title, std::string("output"));
        QVERIFY(!gallery->ui().head->isVisible());
    }

    void aClosedGalleryComputesNothingAndCatchesUpWhenShown()
    {
        menuAction(QStringLiteral("Common mistakes…"))->trigger();
        auto* gallery = m_window->experiments()->window<MistakesDialog>("mistakes");
        gallery->close();
        const auto before = gallery->mistaken();
        attnviz::lesson::PlaygroundSettings settings;
        settings.heads = 2;
        m_window->inputPanel()->setSettings(settings);
        settle();
        QCOMPARE(gallery->mistaken(), before);
        menuAction(QStringLiteral("Common mistakes…"))->trigger();
        QVERIFY(gallery->mistaken() != before);
        QCOMPARE(gallery->mistaken()->heads(), 2);
    }

    void theScalingExperimentChangesTheDivisorAndMeasuresTheSoftmax()
    {
        menuAction(QStringLiteral("Scaling the scores…"))->trigger();
        auto* scaling = m_window->experiments()->window<ScalingDialog>("scaling");
        QVERIFY(scaling && scaling->isVisible());
        QVERIFY(scaling->ui().bySqrtDk->text().contains(QStringLiteral("√4 = 2")));
        QCOMPARE(scaling->divisor(), 2.0);
        // √d_k is the walkthrough's own computation
        const auto shown = m_window->walkthrough();
        QVERIFY(scaling->rescaled());
        QCOMPARE(scaling->rescaled()->trace->weights.at({0, 0, 3, 1}),
                 shown->trace->weights.at({0, 0, 3, 1}));
        const double sharp = scaling->statistics().meanLargestWeight;
        const double entropy = scaling->statistics().meanEntropy;

        scaling->ui().byTemperature->setChecked(true);
        scaling->ui().temperature->setValue(50);
        QCOMPARE(scaling->divisor(), 50.0);
        QVERIFY(scaling->statistics().meanEntropy > entropy);
        QVERIFY(scaling->statistics().meanLargestWeight < sharp);
        QCOMPARE(scaling->rescaled()->trace->scaled.at({0, 1, 5, 2}),
                 shown->trace->scores.at({0, 1, 5, 2}) / 50.0f);
        QVERIFY(scaling->ui().statistics->text().contains(QStringLiteral("Divided by 50")));
        // the histogram counts every unblocked cell of the head: 21 under a causal mask of 6
        int cells = 0;
        for (int c : scaling->statistics().counts)
            cells += c;
        QCOMPARE(cells, 21);

        scaling->ui().byOne->setChecked(true);
        QCOMPARE(scaling->rescaled()->trace->scaled.at({0, 1, 5, 2}),
                 shown->trace->scores.at({0, 1, 5, 2}));
        QVERIFY(std::abs(scaling->statistics().scaledVariance -
                         scaling->statistics().scoreVariance) < 1e-9);
    }

    void aCausalMaskOnCrossAttentionIsWarnedAboutWhereTheMaskShows()
    {
        attnviz::lesson::PlaygroundSettings settings;
        settings.querySentences = {"le chat noir"};
        settings.keyValueSentences = {"the black cat"};
        settings.mask = attnviz::lesson::MaskKind::Causal;
        m_window->inputPanel()->setSettings(settings);
        settle();
        StepPanel* steps = m_window->stepPanel();
        auto* notes = steps->findChild<QLabel*>(QStringLiteral("maskNotes"));
        QVERIFY(notes);
        steps->setStep(attnviz::test::step("masked"));
        QVERIFY(notes->isVisibleTo(m_window.get()));
        QVERIFY(notes->text().contains(QStringLiteral("causal mask on cross-attention")));
        // the cross block's own text says why it needs none
        QVERIFY(steps->findChild<QTextBrowser*>(QStringLiteral("explanation"))
                    ->toPlainText()
                    .contains(QStringLiteral("Why no causal mask here")));
        steps->setStep(attnviz::test::step("projections"));
        QVERIFY(!notes->isVisibleTo(m_window.get()));
    }
    void theValidLengthsFieldBlocksTheKeysAfterEachLength()
    {
        Ui::InputPanel* input = m_window->inputPanel()->ui();
        input->querySentences->setPlainText(QStringLiteral("the cat sat down\na dog ran off"));
        input->mask->setCurrentIndex(0);
        QVERIFY(!input->validLengths->isVisibleTo(m_window.get()));
        input->mask->setCurrentIndex(static_cast<int>(attnviz::lesson::MaskKind::ValidLengths));
        QVERIFY(input->validLengths->isVisibleTo(m_window.get()));
        QVERIFY2(!input->clearMask->isVisibleTo(m_window.get()),
                 "only a drawn mask can be cleared");
        input->validLengths->setFocus();
        QTest::keyClicks(input->validLengths, QStringLiteral("[3, 2]"));
        settle();
        const auto& mask = m_window->walkthrough()->mask;
        QVERIFY(mask.validLengths);
        QCOMPARE(mask.validLengths->lengths, (std::vector<std::int64_t>{3, 2}));
        StepPanel* steps = m_window->stepPanel();
        steps->setStep(attnviz::test::step("softmax"));
        auto* notes = steps->findChild<QLabel*>(QStringLiteral("maskNotes"));
        QVERIFY(notes->isVisibleTo(m_window.get()));
        QVERIFY2(
            notes->text().contains(QStringLiteral("Valid lengths [3, 2]: item 0 sees keys 0–2")),
            qPrintable(notes->text()));
        // Batch item 1 sees keys 0 and 1 only, in every head.
        steps->findChild<QSpinBox*>()->setValue(2);
        QCOMPARE(view(0)->heatmap().value(0, 2), 0.0f);
        QVERIFY(view(0)->heatmap().value(0, 1) > 0.0f);

        // A length beyond a sentence: said under the field, and nothing stale stays on screen.
        input->validLengths->clear();
        QTest::keyClicks(input->validLengths, QStringLiteral("5, 2"));
        settle();
        QVERIFY(input->validLengthsError->isVisibleTo(m_window.get()));
        QVERIFY2(input->validLengthsError->text().contains(
                     QStringLiteral("more than the 4 keys of batch item 0")),
                 qPrintable(input->validLengthsError->text()));
        QVERIFY(!m_window->walkthrough());
    }

    void switchingAHeadOffShowsWhatChangedFromEveryHeadOn()
    {
        StepPanel* steps = m_window->stepPanel();
        auto* difference = steps->findChild<QCheckBox*>(QStringLiteral("ablationDifference"));
        QVERIFY(difference);
        QVERIFY2(!difference->isVisibleTo(m_window.get()), "every head is on");
        steps->setStep(attnviz::test::step("softmax"));
        QVERIFY(attnviz::test::chooseFromContextMenu(view(1), view(1)->rect().center(),
                                                     QStringLiteral("Switch head 1 off")));
        settle();
        QVERIFY(difference->isVisibleTo(m_window.get()));
        difference->setChecked(true);
        auto* ablated = steps->findChild<QLabel*>(QStringLiteral("ablatedHeads"));
        QVERIFY2(ablated->text().contains(QStringLiteral("Nothing changed at this step")),
                 qPrintable(ablated->text()));
        QVERIFY(view(0)->heatmap().caption.starts_with("Δ "));
        QCOMPARE(view(0)->heatmap().value(2, 1), 0.0f);

        steps->setStep(attnviz::test::step("concat"));
        const auto w = m_window->walkthrough();
        const int dv = w->dv();
        const attnviz::lesson::Heatmap& shown = view(0)->heatmap();
        const auto before = w->intact->trace->concat.matrix({0});
        QCOMPARE(shown.value(0, 0), 0.0f);
        QCOMPARE(shown.value(3, dv + 2), -before(3, dv + 2));
        QVERIFY(ablated->text().contains(QStringLiteral("the largest change at this step is")));

        difference->setChecked(false);
        QCOMPARE(view(0)->heatmap().value(3, dv + 2), 0.0f); // heads off: the column is zero
    }

    void theLearnedMatricesReplaceTheProjectionsResult()
    {
        StepPanel* steps = m_window->stepPanel();
        auto* learned = steps->findChild<QCheckBox*>(QStringLiteral("learnedMatrices"));
        QVERIFY(learned);
        steps->setStep(attnviz::test::step("softmax"));
        QVERIFY(!learned->isVisibleTo(m_window.get()));
        steps->setStep(attnviz::test::step("projections"));
        QVERIFY(learned->isVisibleTo(m_window.get()));
        learned->setChecked(true);
        QCOMPARE(steps->grid()->visibleViews().size(), 3u);
        const attnviz::lesson::Heatmap& q = view(0)->heatmap();
        QCOMPARE(QString::fromStdString(q.caption), QStringLiteral("W_qᵀ (D × H·d_k = 16 × 16)"));
        QCOMPARE(q.value(1, 5), m_window->walkthrough()->weights()->wQ(5, 1));
        steps->setStep(attnviz::test::step("output"));
        QCOMPARE(steps->grid()->visibleViews().size(), 1u);
        QVERIFY(view(0)->heatmap().caption.starts_with("W_o "));
    }
};

QTEST_MAIN(ExperimentsTest)
#include "experiments_test.moc"
