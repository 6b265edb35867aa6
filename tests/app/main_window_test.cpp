// The desktop app's random-weights playground driven through its real widgets, offscreen (#3).
#include "app/experiments/experiment_windows.h"
#include "app/experiments/experiments_menu.h"
#include "app/experiments/rollout_dialog.h"
#include "app/experiments/scaling_dialog.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/window/main_window.h"
#include "app/window/settings_store.h"
#include "app/window/walkthrough_runner.h"
#include "app_test_steps.h"
#include "context_menu.h"
#include "lesson/lesson_steps.h"
#include "render/colour_map.h"
#include "render/step_texts.h"
#include "ui_input_panel.h"
#include "window_test_support.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace attnviz::app;

class MainWindowTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    Ui::InputPanel* form() const { return m_window->inputPanel()->ui(); }

    /// Waits until the newest settings have been computed and shown.
    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    HeatmapView* view(int index) const { return attnviz::test::shownView(*m_window, index); }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        m_window = attnviz::test::openPlayground();
        QVERIFY(m_window);
    }

    void cleanup() { m_window.reset(); }

    // #23.8: the wheel zooms a heatmap about the cursor (the cell under it stays under it, and
    // the cells beside it move away), and zooms back out to the whole map; then the page
    // scrolls.
    void theWheelZoomsAboutTheCursor()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        HeatmapView* v = view(0);
        const auto& layout = v->layout();
        const QPointF at = layout.cellCentre(2, 3);
        const QPointF beside = layout.cellCentre(2, 4);
        const auto wheel = [&](int delta) {
            QWheelEvent event(at, v->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(v, &event);
            return event.isAccepted();
        };
        QVERIFY(wheel(120 * 3));
        QVERIFY(v->zoom() > 1.9);
        QCOMPARE(v->cellAt(at.toPoint()), std::optional(std::pair(2, 3)));
        // Half way to the next cell is now inside the cell under the cursor.
        QCOMPARE(v->cellAt(((at + beside) / 2 - QPointF(1, 0)).toPoint()),
                 std::optional(std::pair(2, 3)));
        QVERIFY(wheel(-120 * 10));
        QCOMPARE(v->zoom(), 1.0);
        QVERIFY2(!wheel(-120), "nothing more to zoom out: the event goes on to the page");
        QCOMPARE(v->cellAt(beside.toPoint()), std::optional(std::pair(2, 4)));
    }

    // #28: a matrix larger than the pixels it is drawn in shows the mean of each block of cells
    // (the view builds its picture at the size shown), not every n-th cell: columns alternating
    // 0 and 1 read as one middle tone, never as stripes of 0 or 1 (moiré).
    void aLargeMapDrawnSmallShowsTheMeanOfItsCells()
    {
        const int n = 1024;
        std::vector<float> values(static_cast<std::size_t>(n) * n);
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<float>(i % 2);
        attnviz::lesson::Heatmap map;
        map.matrix.values = values.data();
        map.matrix.rows = n;
        map.matrix.cols = n;
        map.scale = attnviz::lesson::ColourScale::Sequential;
        HeatmapView view;
        view.resize(420, 420);
        view.setHeatmap(map, {0.0, 1.0}, false);
        const QImage picture = view.grab().toImage();
        const QRect cells = view.layout().cells().toAlignedRect().adjusted(3, 3, -3, -3);
        QVERIFY(cells.width() > 100 && cells.width() < n / 2);
        // The level (in twentieths) whose colour is nearest each pixel's.
        const auto level = [](QRgb pixel) {
            int best = 0;
            int bestDistance = std::numeric_limits<int>::max();
            for (int k = 0; k <= 20; ++k) {
                const QRgb c = attnviz::render::colourOf(k / 20.0, {0.0, 1.0},
                                                         attnviz::lesson::ColourScale::Sequential);
                const int d = (qRed(c) - qRed(pixel)) * (qRed(c) - qRed(pixel)) +
                    (qGreen(c) - qGreen(pixel)) * (qGreen(c) - qGreen(pixel)) +
                    (qBlue(c) - qBlue(pixel)) * (qBlue(c) - qBlue(pixel));
                if (d < bestDistance) {
                    bestDistance = d;
                    best = k;
                }
            }
            return best;
        };
        for (int y = cells.top(); y <= cells.bottom(); y += 7)
            for (int x = cells.left(); x <= cells.right(); ++x) {
                const int k = level(picture.pixel(x, y));
                QVERIFY2(
                    k >= 6 && k <= 14,
                    qPrintable(QStringLiteral("pixel %1, %2 shows %3/20").arg(x).arg(y).arg(k)));
            }
    }

    void changingHeadsChangesTheGrid()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        QCOMPARE(m_window->stepPanel()->grid()->visibleViews().size(), 4u);
        form()->heads->setValue(2);
        settle();
        QCOMPARE(m_window->walkthrough()->trace->numHeads(), 2);
        QCOMPARE(m_window->stepPanel()->grid()->visibleViews().size(), 2u);
        form()->heads->setValue(8);
        settle();
        QCOMPARE(m_window->stepPanel()->grid()->visibleViews().size(), 8u);
        QVERIFY(m_window->stepPanel()->formulaText().contains(QStringLiteral("(6×2)")));
    }

    // #44.5: the Experiments menu is kExperimentWindows: one action per row in its order, a
    // separator between sections, each row's text, tooltip and shortcut, then Predict, then
    // reveal. An action opens its window once and shows that one again after it was closed.
    void theExperimentsMenuIsItsRegistry()
    {
        const QList<QAction*> actions =
            m_window->findChild<QMenu*>(QStringLiteral("menuExperiments"))->actions();
        qsizetype at = 0;
        for (std::size_t i = 0; i < kExperimentWindows.size(); ++i) {
            const ExperimentWindow& row = kExperimentWindows[i];
            const QString name = QString::fromLatin1(row.name.data(), row.name.size());
            if (i > 0 && row.section != kExperimentWindows[i - 1].section) {
                QVERIFY(at < actions.size());
                QVERIFY2(actions[at++]->isSeparator(), qPrintable(name));
            }
            QVERIFY(at < actions.size());
            QAction* action = actions[at++];
            QCOMPARE(action, m_window->experiments()->action(row.name));
            QCOMPARE(action->text(), QString::fromUtf8(row.text));
            QCOMPARE(action->toolTip(), QString::fromUtf8(row.toolTip));
            QCOMPARE(action->shortcut(), QKeySequence(QString::fromLatin1(row.shortcut)));
            QVERIFY(!m_window->experiments()->window(row.name));
            action->trigger();
            ExperimentDialog* window = m_window->experiments()->window(row.name);
            QVERIFY2(window && window->isVisible(), qPrintable(name));
            QCOMPARE(window->objectName(), name);
            window->close();
            action->trigger();
            QCOMPARE(m_window->experiments()->window(row.name), window);
            QVERIFY(window->isVisible());
            window->close();
        }
        QCOMPARE(at + 2, actions.size());
        QVERIFY(actions[at]->isSeparator());
        QCOMPARE(actions[at + 1]->objectName(), QStringLiteral("actionPredict"));
    }

    // The experiments' shortcuts users know open their windows from the keyboard.
    void experimentShortcutsOpenTheirWindows()
    {
        for (const auto& [key, name] :
             {std::pair{Qt::Key_K, "scaling"}, std::pair{Qt::Key_M, "mistakes"},
              std::pair{Qt::Key_I, "importance"}}) {
            QTest::keyClick(m_window.get(), key, Qt::ControlModifier);
            ExperimentDialog* window = m_window->experiments()->window(name);
            QVERIFY2(window && window->isVisible(), name);
            window->close();
        }
    }

    // #44.5: a window follows what its row names by itself: the walkthrough shown, or the model
    // shown (none in the playground, which the window is told when the user goes back to it).
    void experimentWindowsFollowTheSessionThemselves()
    {
        m_window->experiments()->action("scaling")->trigger();
        m_window->experiments()->action("rollout")->trigger();
        auto* scaling = m_window->experiments()->window<ScalingDialog>("scaling");
        auto* rollout = m_window->experiments()->window<RolloutDialog>("rollout");
        QVERIFY(scaling && rollout);
        QVERIFY(scaling->rescaled() && !rollout->map());
        form()->heads->setValue(2);
        settle();
        QVERIFY(scaling->rescaled());
        QCOMPARE(scaling->rescaled()->heads(), 2);
        m_window->modelPanel()->setRequest(defaultModelRequest());
        settle();
        QVERIFY(rollout->map());
        QCOMPARE(scaling->rescaled()->trace->queryLength(),
                 m_window->walkthrough()->trace->queryLength());
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(!rollout->map());
        QCOMPARE(scaling->rescaled()->heads(), 2);
    }

    void keyboardVisitsEveryStepInOrder()
    {
        QTest::keyClick(m_window.get(), Qt::Key_Home);
        QStringList seen;
        for (const std::size_t i :
             attnviz::lesson::shownLessonSteps(*m_window->walkthrough()->trace)) {
            seen << m_window->stepPanel()->positionText();
            QCOMPARE(m_window->stepPanel()->step(), i);
            QTest::keyClick(m_window.get(), Qt::Key_Right);
        }
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("output")); // stays on the last
        for (int i = 0; i < seen.size(); ++i)
            QVERIFY2(
                seen[i].startsWith(QStringLiteral("Step %1 of %2").arg(i + 1).arg(seen.size())),
                qPrintable(seen[i]));
        QTest::keyClick(m_window.get(), Qt::Key_Left);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("concat"));
        QTest::keyClick(m_window.get(), Qt::Key_End);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("output"));
    }

    void tooltipShowsTheEngineValue()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        QApplication::processEvents();
        HeatmapView* head2 = view(1);
        const QPoint centre = head2->cellCentre(2, 4);
        QTest::mouseMove(head2, centre);
        QTRY_VERIFY(!head2->lastToolTip().isEmpty());
        const float expected = m_window->walkthrough()->trace->weights.at({0, 1, 2, 4});
        const QString tip = head2->lastToolTip();
        QVERIFY2(tip.contains(QStringLiteral("“sat”")) && tip.contains(QStringLiteral("“the”")),
                 qPrintable(tip));
        QVERIFY2(tip.endsWith(QString::number(static_cast<double>(expected), 'g', 7)),
                 qPrintable(tip));
        QVERIFY2(tip.startsWith(QStringLiteral("head 1 · query 2 “sat”")), qPrintable(tip));
    }

    void aFeatureIndexIsNotRepeatedAsItsLabel()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("projections"));
        QApplication::processEvents();
        HeatmapView* q = view(0);
        QTest::mouseMove(q, q->cellCentre(1, 9));
        QTRY_VERIFY(!q->lastToolTip().isEmpty());
        const QString tip = q->lastToolTip();
        QVERIFY2(tip.contains(QStringLiteral("→ feature 9: ")), qPrintable(tip));
        QVERIFY2(!tip.contains(QStringLiteral("“9”")), qPrintable(tip));
    }

    void blockedCellReportsMinusInfinity()
    {
        form()->mask->setCurrentIndex(static_cast<int>(attnviz::lesson::MaskKind::Causal));
        settle();
        m_window->stepPanel()->setStep(attnviz::test::step("masked"));
        QApplication::processEvents();
        HeatmapView* head1 = view(0);
        QTest::mouseMove(head1, head1->cellCentre(0, 3));
        QTRY_VERIFY(head1->lastToolTip().contains(QStringLiteral("−∞")));
        QVERIFY(std::isinf(m_window->walkthrough()->trace->masked.at({0, 0, 0, 3})));
        QVERIFY(head1->heatmap().blocked(0, 3));
        QVERIFY(!head1->heatmap().blocked(3, 0));
    }

    void impossibleConfigurationIsExplainedAndNotComputed()
    {
        const int before = m_window->session()->playgroundRunner()->computationsStarted();
        QVERIFY(m_window->walkthrough());
        form()->modelWidth->setValue(10);
        form()->heads->setValue(3);
        QApplication::processEvents();
        QVERIFY(form()->queryKeySizeError->isVisibleTo(m_window.get()));
        QVERIFY(form()->queryKeySizeError->text().contains(
            QStringLiteral("D = 10 cannot be split into 3 equal heads")));
        // D = 10 with H = 4 is impossible too, so neither edit may have started a computation.
        QTest::qWait(50);
        QCOMPARE(m_window->session()->playgroundRunner()->computationsStarted(), before);
        // The last settings that worked are not shown beside these (#11).
        QVERIFY(!m_window->walkthrough());
        QVERIFY(m_window->stepPanel()->grid()->visibleViews().empty());
        form()->heads->setValue(5);
        settle();
        QVERIFY(!form()->queryKeySizeError->isVisibleTo(m_window.get()));
        QCOMPARE(m_window->walkthrough()->trace->numHeads(), 5);
    }

    // #44.3: the playground's treatments, set through its controls: each shows its own step in
    // the navigator, the scale step's button says what the scores are multiplied by, and a
    // number of rotated features rotary positions cannot turn is refused before any run.
    void theTreatmentsAreSetInThePlaygroundAndShownAsSteps()
    {
        const auto buttonText = [&](const char* key) {
            QAbstractButton* b = nullptr;
            for (QAbstractButton* candidate :
                 m_window->stepPanel()
                     ->findChild<QWidget*>(QStringLiteral("stepNavigator"))
                     ->findChildren<QAbstractButton*>())
                if (candidate->isVisibleTo(m_window.get()) &&
                    candidate->toolTip() ==
                        attnviz::render::stepHeading(
                            attnviz::lesson::kLessonSteps[attnviz::test::step(key)],
                            m_window->walkthrough().get())
                            .title)
                    b = candidate;
            return b ? b->text() : QString();
        };
        const auto shown = [&](const char* key) {
            const auto steps = attnviz::lesson::shownLessonSteps(*m_window->walkthrough()->trace);
            return std::find(steps.begin(), steps.end(), attnviz::test::step(key)) != steps.end();
        };
        QVERIFY(!shown("normed") && !shown("capped") && !shown("sink"));
        QCOMPARE(buttonText("scaled"), QStringLiteral("÷√d_k"));

        form()->positions->setCurrentIndex(static_cast<int>(attnviz::lesson::PositionKind::Rotary));
        form()->rotaryDim->setValue(3);
        QApplication::processEvents();
        QVERIFY(form()->rotaryDimError->isVisibleTo(m_window.get()));
        QVERIFY2(form()->rotaryDimError->text().contains(QStringLiteral("even number")),
                 qPrintable(form()->rotaryDimError->text()));
        QVERIFY(!m_window->walkthrough());
        form()->rotaryDim->setValue(2);
        // The (1 + w) gain belongs to a q/k norm: shown with one, and while set after it.
        QVERIFY(!form()->queryKeyNormUnitOffset->isVisibleTo(m_window.get()));
        form()->queryKeyNorm->setCurrentIndex(
            static_cast<int>(attnviz::lesson::QueryKeyNormKind::PerHead));
        QVERIFY(form()->queryKeyNormUnitOffset->isVisibleTo(m_window.get()));
        form()->queryKeyNormUnitOffset->setChecked(true);
        form()->queryKeyNorm->setCurrentIndex(0);
        QVERIFY(form()->queryKeyNormUnitOffset->isVisibleTo(m_window.get()));
        form()->queryKeyNormUnitOffset->setChecked(false);
        QVERIFY(!form()->queryKeyNormUnitOffset->isVisibleTo(m_window.get()));
        form()->queryKeyNorm->setCurrentIndex(
            static_cast<int>(attnviz::lesson::QueryKeyNormKind::PerHead));
        form()->scoreScale->setValue(0.125);
        form()->softCap->setValue(2);
        form()->learnedSinks->setChecked(true);
        settle();
        QVERIFY(!form()->rotaryDimError->isVisibleTo(m_window.get()));
        const attnviz::engine::AttentionDescription& d = m_window->walkthrough()->description();
        QCOMPARE(d.rotary->rotatedSize, 2);
        QVERIFY(d.queryKeyNorm &&
                d.queryKeyNorm->scope == attnviz::engine::QueryKeyNorm::Scope::PerHead);
        QCOMPARE(*d.scoreScale, 0.125);
        QCOMPARE(*d.logitSoftCap, 2.0);
        QVERIFY(d.learnedSinks);
        QVERIFY(shown("normed") && shown("capped") && shown("sink"));
        QCOMPARE(buttonText("scaled"), QStringLiteral("× scale"));
        // The capped scores shown are the trace's, inside ±2.
        const attnviz::engine::Tensor& capped = m_window->walkthrough()->trace->capped;
        for (std::int64_t i = 0; i < capped.size(); ++i)
            QVERIFY(std::abs(capped.data()[i]) < 2.0f);
    }

    void splitStepShowsQueriesKeysOrValues()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("split"));
        QCOMPARE(m_window->stepPanel()->alternative(), 0);
        QVERIFY(view(1)->heatmap().title.find("Q_h") != std::string::npos);
        m_window->stepPanel()->setAlternative(1);
        QApplication::processEvents();
        QVERIFY(view(1)->heatmap().title.find("K_h") != std::string::npos);
        QCOMPARE(view(1)->heatmap().value(2, 3),
                 m_window->walkthrough()->trace->kHeads.at({0, 1, 2, 3}));
        m_window->stepPanel()->setAlternative(2);
        QApplication::processEvents();
        QCOMPARE(view(3)->heatmap().value(4, 0),
                 m_window->walkthrough()->trace->vHeads.at({0, 3, 4, 0}));
        m_window->stepPanel()->setAlternative(0);
    }

    void presentationModeEnlargesThePlotsToo()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        const QFont before = view(0)->layout().tickFont();
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QApplication::processEvents();
        const QFont after = view(0)->layout().tickFont();
        QVERIFY2(
            after.pointSizeF() > before.pointSizeF() * 1.3,
            qPrintable(QStringLiteral("%1 → %2").arg(before.pointSizeF()).arg(after.pointSizeF())));
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QApplication::processEvents();
        QCOMPARE(view(0)->layout().tickFont().pointSizeF(), before.pointSizeF());
    }

    void aHeadSwitchedOffFromItsMenuLosesItsConcatColumns()
    {
        StepPanel* steps = m_window->stepPanel();
        steps->setStep(attnviz::test::step("softmax"));
        auto* label = steps->findChild<QLabel*>(QStringLiteral("ablatedHeads"));
        QVERIFY(label && !label->isVisibleTo(m_window.get()));
        const auto before = m_window->walkthrough();
        QVERIFY(attnviz::test::chooseFromContextMenu(view(1), view(1)->rect().center(),
                                                     "Switch head 1 off"));
        settle();
        const auto after = m_window->walkthrough();
        QVERIFY(after != before);
        QCOMPARE(after->trace->ablatedHeads, std::vector<int>{1});
        QVERIFY(label->isVisibleTo(m_window.get()));
        QVERIFY(label->text().contains(QStringLiteral("head 1")));
        QVERIFY(steps->grid()->matrices()[1].title.ends_with("(switched off)"));
        // The engine kept head 1's context and zeroed its concat columns: the output changed.
        const auto& concat = after->trace->concat;
        const std::int64_t width = concat.dim(2), dv = width / 4;
        for (std::int64_t t = 0; t < concat.dim(1); ++t)
            for (std::int64_t c = dv; c < 2 * dv; ++c)
                QCOMPARE(concat.values()[static_cast<std::size_t>(t * width + c)], 0.0f);
        QVERIFY(after->trace->context.values()[0] == before->trace->context.values()[0]);
        QVERIFY(after->trace->output.values()[0] != before->trace->output.values()[0]);

        // On the concat step, the band of head 1 offers to switch it back on.
        steps->setStep(attnviz::test::step("concat"));
        HeatmapView* whole = view(0);
        QVERIFY(attnviz::test::chooseFromContextMenu(whole, whole->rect().center(),
                                                     "Switch every head back on"));
        settle();
        QVERIFY(m_window->walkthrough()->trace->ablatedHeads.empty());
        QVERIFY(!label->isVisibleTo(m_window.get()));
    }

    // Drawing a mask is a mode (#13): it says so above the heatmaps, a click blocks a cell in
    // every head instead of zooming to one, the drawn cells show on every score step, a second
    // click unblocks, and another mask ends the mode.
    void clickingACellDrawsTheCustomMask()
    {
        StepPanel* steps = m_window->stepPanel();
        auto* banner = steps->findChild<QLabel*>(QStringLiteral("maskDrawing"));
        QVERIFY(banner);
        QVERIFY(!banner->isVisibleTo(m_window.get()));
        QVERIFY(!form()->clearMask->isVisibleTo(m_window.get()));
        form()->mask->setCurrentIndex(static_cast<int>(attnviz::lesson::MaskKind::Custom));
        settle();
        QVERIFY(form()->clearMask->isVisibleTo(m_window.get()));
        QVERIFY2(!form()->clearMask->isEnabled(), "nothing drawn yet");
        // Off the score steps the banner says where to draw; the grid still zooms.
        steps->setStep(attnviz::test::step("projections"));
        QVERIFY(banner->isVisibleTo(m_window.get()));
        QVERIFY2(banner->text().contains(QStringLiteral("score steps")),
                 qPrintable(banner->text()));
        QVERIFY(!steps->grid()->maskDrawing());

        steps->setStep(attnviz::test::step("scores"));
        QApplication::processEvents();
        QVERIFY(steps->grid()->maskDrawing());
        QVERIFY2(banner->text().contains(QStringLiteral("click a cell")),
                 qPrintable(banner->text()));
        HeatmapView* head1 = view(1);
        QTest::mouseClick(head1, Qt::LeftButton, {}, head1->cellCentre(1, 2));
        settle();
        QCOMPARE(steps->grid()->focusedHead(), -1); // drawing, not zooming
        for (std::int64_t h = 0; h < 4; ++h) {
            QVERIFY(std::isinf(m_window->walkthrough()->trace->masked.at({0, h, 1, 2})));
            QCOMPARE(m_window->walkthrough()->trace->weights.at({0, h, 1, 2}), 0.0f);
        }
        QVERIFY(form()->clearMask->isEnabled());
        QVERIFY2(banner->text().contains(QStringLiteral("Blocked: 1")), qPrintable(banner->text()));
        // The drawn cell is outlined on the scores (which the mask does not change) and on the
        // later score steps.
        for (const char* step : {"scores", "scaled", "masked", "softmax"}) {
            steps->setStep(attnviz::test::step(step));
            QApplication::processEvents();
            QVERIFY2(steps->grid()->maskDrawing(), step);
            for (HeatmapView* v : steps->grid()->visibleViews())
                QCOMPARE(v->drawnCells(), (std::set<std::pair<int, int>>{{1, 2}}));
        }

        steps->setStep(attnviz::test::step("scaled"));
        QApplication::processEvents();
        QTest::mouseClick(view(0), Qt::LeftButton, {}, view(0)->cellCentre(1, 2));
        settle();
        QVERIFY(std::isfinite(m_window->walkthrough()->trace->masked.at({0, 0, 1, 2})));
        QVERIFY(!form()->clearMask->isEnabled());

        form()->mask->setCurrentIndex(static_cast<int>(attnviz::lesson::MaskKind::Causal));
        settle();
        QVERIFY(!banner->isVisibleTo(m_window.get()));
        QVERIFY(!steps->grid()->maskDrawing());
        QTest::mouseClick(view(2), Qt::LeftButton, {}, view(2)->cellCentre(0, 0));
        QCOMPARE(steps->grid()->focusedHead(), 2); // clicking zooms again
    }

    // Where columns are coloured by head, a legend names every head's colour (#13); per-head
    // steps frame each head in its colour instead.
    void aLegendNamesTheHeadsColoursWhereColumnsBelongToHeads()
    {
        StepPanel* steps = m_window->stepPanel();
        auto* legend = steps->findChild<QLabel*>(QStringLiteral("headLegend"));
        QVERIFY(legend);
        for (const char* step : {"projections", "concat"}) {
            steps->setStep(attnviz::test::step(step));
            QVERIFY2(legend->isVisibleTo(m_window.get()), step);
            for (int h = 0; h < 4; ++h)
                QVERIFY2(legend->text().contains(attnviz::render::headColour(h).name()),
                         qPrintable(legend->text()));
            QVERIFY(!legend->text().contains(attnviz::render::headColour(4).name()));
        }
        steps->setStep(attnviz::test::step("softmax"));
        QVERIFY(!legend->isVisibleTo(m_window.get()));
    }

    // Every control of the playground says what it does when hovered (#13).
    void everyPlaygroundControlHasATooltip()
    {
        QWidget* panel = m_window->inputPanel();
        int controls = 0;
        for (QWidget* w : panel->findChildren<QWidget*>()) {
            if (!qobject_cast<QAbstractSpinBox*>(w) && !qobject_cast<QComboBox*>(w) &&
                !qobject_cast<QAbstractButton*>(w) && !qobject_cast<QPlainTextEdit*>(w) &&
                !qobject_cast<QLineEdit*>(w))
                continue;
            if (qobject_cast<QLineEdit*>(w) && qobject_cast<QAbstractSpinBox*>(w->parent()))
                continue; // a spin box's own editor
            ++controls;
            QVERIFY2(!w->toolTip().isEmpty(), qPrintable(w->objectName()));
        }
        QVERIFY(controls >= 14);
    }

    // Five heads: the last row of two is centred under the three above it, and the one colour
    // bar sits at the right end of the first row, not in the middle of the grid (#13).
    void fiveHeadsCentreTheirLastRowAndKeepTheColourBarAtTheRight()
    {
        form()->heads->setValue(5);
        form()->modelWidth->setValue(20);
        settle();
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        QApplication::processEvents();
        const std::vector<HeatmapView*> views = m_window->stepPanel()->grid()->visibleViews();
        QCOMPARE(views.size(), 5u);
        const auto left = [&](int i) {
            return views[static_cast<std::size_t>(i)]->geometry().left();
        };
        const auto right = [&](int i) {
            return views[static_cast<std::size_t>(i)]->geometry().right();
        };
        const int firstRowMiddle = (left(0) + right(2)) / 2;
        const int lastRowMiddle = (left(3) + right(4)) / 2;
        QVERIFY2(std::abs(firstRowMiddle - lastRowMiddle) <= 8,
                 qPrintable(QStringLiteral("%1 vs %2").arg(firstRowMiddle).arg(lastRowMiddle)));
        QVERIFY(views[3]->geometry().top() > views[0]->geometry().bottom());
        for (int i = 0; i < 5; ++i)
            QCOMPARE(!views[static_cast<std::size_t>(i)]->layout().colourBar().isNull(), i == 2);
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
