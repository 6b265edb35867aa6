// The classroom (#13), driven through the real window offscreen: View ▸ Language rebuilds the
// window in Chinese around the lesson it showed and back in English; Help's glossary, tour and
// shortcuts; the step texts link their terms to the glossary.
#include "app/dialogs/glossary_dialog.h"
#include "app/dialogs/guided_tour.h"
#include "app/dialogs/preferences_dialog.h"
#include "app/experiments/experiments_menu.h"
#include "app/experiments/importance_dialog.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/views/step_animation.h"
#include "app/window/language.h"
#include "app/window/main_window.h"
#include "app/window/window_lesson.h"
#include "app_test_steps.h"
#include "ui_glossary_dialog.h"
#include "ui_importance_dialog.h"
#include "ui_input_panel.h"
#include "ui_model_panel.h"
#include "ui_preferences_dialog.h"
#include "window_test_support.h"

#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest>

using namespace attnviz::app;
using attnviz::engine::Block;

namespace {

bool hasHan(const QString& text)
{
    return std::any_of(text.begin(), text.end(),
                       [](QChar c) { return c.script() == QChar::Script_Han; });
}

MainWindow* onlyWindow()
{
    MainWindow* found = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* window = qobject_cast<MainWindow*>(w); window && window->isVisible())
            found = window;
    return found;
}

QAction* languageAction(MainWindow& window, const char* code)
{
    return window.findChild<QAction*>(QStringLiteral("language_") + QLatin1String(code));
}

// Whether `text` has a word of English in it (a Latin word of three letters or more that is not
// one of `allowed`: names such as heldout.txt or BPE).
bool hasEnglishWord(const QString& text, const QStringList& allowed = {})
{
    static const QRegularExpression word(QStringLiteral("[A-Za-z]{3,}"));
    for (auto it = word.globalMatch(text); it.hasNext();)
        if (!allowed.contains(it.next().captured()))
            return true;
    return false;
}

QString menuTitles(MainWindow& window)
{
    QStringList titles;
    for (QAction* action : window.menuBar()->actions())
        titles << action->text();
    return titles.join(QLatin1Char(' '));
}

} // namespace

class ClassroomTest : public QObject {
    Q_OBJECT

private:
    MainWindow* m_window = nullptr;

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    // Triggers View ▸ Language ▸ `code` and waits for the window built in its place.
    void switchTo(const char* code)
    {
        QAction* action = languageAction(*m_window, code);
        QVERIFY(action);
        QPointer<MainWindow> old = m_window;
        action->trigger();
        QTRY_VERIFY(!old);
        m_window = onlyWindow();
        QVERIFY(m_window);
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        settle();
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        QSettings().clear();
        applyLanguage(QStringLiteral("en"));
        m_window = new MainWindow;
        m_window->setAttribute(Qt::WA_DeleteOnClose);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        settle();
    }

    void cleanup()
    {
        delete onlyWindow();
        applyLanguage(QStringLiteral("en"));
    }

    void theWindowSwitchesToChineseAndBackKeepingTheLesson()
    {
        m_window->modelPanel()->setChoice({1, Block::MaskedSelf, -1});
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        settle();
        const QString englishMenus = menuTitles(*m_window);
        const QString englishTitle = m_window->stepPanel()->positionText();
        QVERIFY(!hasHan(englishMenus));

        switchTo("zh_CN");
        QCOMPARE(currentLanguage(), QStringLiteral("zh_CN"));
        QVERIFY(languageAction(*m_window, "zh_CN")->isChecked());
        // The lesson shown survives the rebuild.
        QCOMPARE(m_window->modelPanel()->choice().layer, 1);
        QCOMPARE(m_window->modelPanel()->choice().block, Block::MaskedSelf);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("softmax"));
        // A sample of every kind of text: menus (the catalogue), the step's title and
        // explanation (the translated resources), and one of Qt's own buttons.
        QVERIFY2(hasHan(menuTitles(*m_window)), qPrintable(menuTitles(*m_window)));
        QVERIFY2(hasHan(m_window->stepPanel()->positionText()),
                 qPrintable(m_window->stepPanel()->positionText()));
        auto* explanation =
            m_window->stepPanel()->findChild<QTextBrowser*>(QStringLiteral("explanation"));
        QVERIFY(explanation);
        QVERIFY(hasHan(explanation->toPlainText()));
        // The words the lesson layer writes: the shape line, the heatmaps' titles and axes, the
        // cells' tooltips, and the demo's description.
        auto* shape = m_window->stepPanel()->findChild<QLabel*>(QStringLiteral("shape"));
        QVERIFY(shape);
        QVERIFY2(shape->text().contains(QStringLiteral("查询=")), qPrintable(shape->text()));
        const std::vector<HeatmapView*> views = m_window->stepPanel()->grid()->visibleViews();
        QVERIFY(!views.empty());
        const QString tip = views.front()->toolTipForCell(0, 0);
        QVERIFY2(tip.contains(QStringLiteral("头 0")) && tip.contains(QStringLiteral("查询")) &&
                     tip.contains(QStringLiteral("键")),
                 qPrintable(tip));
        auto* description =
            m_window->modelPanel()->findChild<QLabel*>(QStringLiteral("description"));
        QVERIFY(description);
        QVERIFY2(description->text().contains(QStringLiteral("反")),
                 qPrintable(description->text()));
        QVERIFY2(hasHan(QCoreApplication::translate("QPlatformTheme", "Cancel")),
                 "Qt's own catalogue (qt6-translations-l10n) is not installed");
        QCOMPARE(QSettings().value(QStringLiteral("language")).toString(), QStringLiteral("zh_CN"));

        switchTo("en");
        QCOMPARE(menuTitles(*m_window), englishMenus);
        shape = m_window->stepPanel()->findChild<QLabel*>(QStringLiteral("shape"));
        QVERIFY(shape && shape->text().contains(QStringLiteral("query=")));
        QCOMPARE(m_window->stepPanel()->positionText(), englishTitle);
    }

    // The playground's impossible settings (D = 16, H = 5: a classic in class) are explained in
    // Chinese, numbers in place, and the drawing mode and mask labels too.
    void aChineseClassReadsTheSettingsProblemsInChinese()
    {
        m_window->modelPanel()->setRequest(
            attnviz::lesson::ModelSource{}); // the random-weights playground
        settle();
        switchTo("zh_CN");
        QVERIFY(m_window->modelPanel()->playground());
        Ui::InputPanel* form = m_window->inputPanel()->ui();
        form->heads->setValue(5);
        settle();
        QVERIFY(form->queryKeySizeError->isVisibleTo(m_window));
        const QString problem = form->queryKeySizeError->text();
        QVERIFY2(hasHan(problem) && problem.contains(QStringLiteral("D = 16")) &&
                     problem.contains(QStringLiteral("5 个头")),
                 qPrintable(problem));
        QVERIFY(!problem.contains(QStringLiteral("cannot")));
        QVERIFY(hasHan(form->mask->itemText(static_cast<int>(attnviz::lesson::MaskKind::Custom))));
    }

    // A 1280 × 720 projector holds the whole window in either language, on the busiest steps:
    // nothing in the window asks for more room than that, and the window rebuilt in another
    // language stays on the screen, however large the one before it was.
    void theWindowFitsA1280x720ScreenInEitherLanguage()
    {
        m_window->modelPanel()->setRequest(
            attnviz::lesson::ModelSource{}); // the random-weights playground
        settle();
        const QRect room = QGuiApplication::primaryScreen()->availableGeometry();
        for (const char* code : {"en", "zh_CN"}) {
            if (currentLanguage() != QLatin1String(code)) {
                m_window->setGeometry(room.adjusted(40, 40, 400, 300)); // larger, and off it
                switchTo(code);
                // The offscreen test screen (800 × 800) is smaller than the window can be:
                // there the window is as narrow as its layout allows, and its height follows
                // from the text wrapped at that width.
                const auto fits = [&] {
                    const QRect frame = m_window->frameGeometry();
                    return room.contains(frame.topLeft()) &&
                        frame.width() <=
                        std::max(room.width(),
                                 m_window->layout()->totalMinimumSize().width() + 8) &&
                        frame.height() < room.height() + 300 - 40;
                };
                QTRY_VERIFY(fits());
            }
            for (const char* step : {"projections", "softmax", "concat"}) {
                m_window->stepPanel()->setStep(attnviz::test::step(step));
                QApplication::processEvents();
                const QSize needed =
                    m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
                QVERIFY2(needed.width() <= 1280 && needed.height() <= 720 - 30,
                         qPrintable(QStringLiteral("%1 on %2 needs %3 × %4")
                                        .arg(QLatin1String(code), QLatin1String(step))
                                        .arg(needed.width())
                                        .arg(needed.height())));
            }
        }
    }

    void aLessonInChineseOpensInChinese()
    {
        attnviz::lesson::LessonFile lesson = m_window->lesson()->current();
        lesson.language = "zh_CN";
        lesson.step = "scores";
        QPointer<MainWindow> old = m_window;
        m_window->lesson()->open(lesson);
        QTRY_VERIFY(!old);
        m_window = onlyWindow();
        QVERIFY(m_window);
        settle();
        QCOMPARE(currentLanguage(), QStringLiteral("zh_CN"));
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("scores"));
        QVERIFY(hasHan(menuTitles(*m_window)));
    }

    void termsInTheExplanationOpenTheGlossary()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        auto* explanation =
            m_window->stepPanel()->findChild<QTextBrowser*>(QStringLiteral("explanation"));
        QVERIFY(explanation);
        const QString html = explanation->toHtml();
        const qsizetype link = html.indexOf(QStringLiteral("glossary:"));
        QVERIFY2(link >= 0, "the softmax step links no glossary term");
        const QString key = html.mid(link + 9).section(QLatin1Char('"'), 0, 0);
        emit explanation->anchorClicked(QUrl(QStringLiteral("glossary:") + key));
        auto* glossary = m_window->findChild<GlossaryDialog*>();
        QVERIFY(glossary);
        QVERIFY(glossary->isVisible());
        QCOMPARE(glossary->shownKey(), key);
        QVERIFY(!glossary->form()->explanation->toPlainText().isEmpty());
    }

    void theGlossaryFindsTermsAndFollowsItsOwnLinks()
    {
        GlossaryDialog* glossary = m_window->openGlossary({});
        QVERIFY(glossary->form()->terms->count() >= 30);
        QVERIFY(glossary->showTerm(QStringLiteral("d_k")));
        QVERIFY(glossary->form()->explanation->toPlainText().contains(QStringLiteral("d_k")));
        glossary->form()->filter->setText(QStringLiteral("LayerNorm"));
        int shown = 0;
        for (int row = 0; row < glossary->form()->terms->count(); ++row)
            shown += glossary->form()->terms->item(row)->isHidden() ? 0 : 1;
        QVERIFY(shown >= 1);
        QVERIFY(shown < glossary->form()->terms->count());
        // A term hidden by the filter is shown again when a link asks for it.
        QVERIFY(glossary->showTerm(QStringLiteral("softmax")));
        QCOMPARE(glossary->shownKey(), QStringLiteral("softmax"));
        QVERIFY(!glossary->showTerm(QStringLiteral("no_such_term")));
    }

    // #23: the glossary in Chinese is in pinyin order (a dictionary's), and a search that finds
    // nothing says so instead of showing the term chosen before.
    void theChineseGlossaryIsInPinyinOrderAndSaysWhenNothingMatches()
    {
        switchTo("zh_CN");
        GlossaryDialog* glossary = m_window->openGlossary({});
        QListWidget* terms = glossary->form()->terms;
        QStringList shown;
        for (int row = 0; row < terms->count(); ++row)
            shown << terms->item(row)->text();
        // cán chā < céng < chá < cí < duō < tóu < zhí < zhù < zì
        const QStringList inOrder{"残差流", "层归一化", "查询",   "词元",    "多头注意力",
                                  "头",     "值",       "注意力", "自注意力"};
        qsizetype last = -1;
        for (const QString& term : inOrder) {
            const qsizetype at = shown.indexOf(term);
            QVERIFY2(at > last, qPrintable(term + QStringLiteral(" in ") + shown.join(' ')));
            last = at;
        }
        QVERIFY(!glossary->shownKey().isEmpty());
        const QString before = glossary->form()->explanation->toPlainText();
        glossary->form()->filter->setText(QStringLiteral("量子纠缠"));
        QCOMPARE(glossary->shownKey(), QString());
        QCOMPARE(glossary->form()->terms->currentRow(), -1);
        const QString nothing = glossary->form()->explanation->toPlainText();
        QCOMPARE(nothing, QStringLiteral("没有与“量子纠缠”匹配的术语。"));
        QVERIFY(!nothing.contains(before));
        // A search that finds something again shows its first term.
        glossary->form()->filter->setText(QStringLiteral("softmax"));
        QVERIFY(!glossary->shownKey().isEmpty());
        QVERIFY(glossary->form()->explanation->toPlainText().contains(QStringLiteral("softmax"),
                                                                      Qt::CaseInsensitive));
        glossary->form()->filter->clear();
        QVERIFY(glossary->showTerm(QStringLiteral("head")));
        // Its explanation links other terms; the safetensors text does not link its JSON 头.
        QVERIFY(glossary->showTerm(QStringLiteral("safetensors")));
        QVERIFY(!glossary->form()->explanation->toHtml().contains(QStringLiteral("glossary:head")));
        if (qEnvironmentVariableIsSet("ATTNVIZ_GLOSSARY_SHOT")) {
            // docs/screenshots/41-chinese-glossary.png: the list from its top, a term whose
            // explanation links others.
            QVERIFY(glossary->showTerm(QStringLiteral("multi_head_attention")));
            glossary->resize(820, 520);
            glossary->form()->terms->scrollToTop();
            QApplication::processEvents();
            QVERIFY(glossary->grab().save(qEnvironmentVariable("ATTNVIZ_GLOSSARY_SHOT")));
        }
    }

    void anEnglishSearchThatFindsNothingSaysSo()
    {
        GlossaryDialog* glossary = m_window->openGlossary({});
        QListWidget* terms = glossary->form()->terms;
        QStringList shown;
        for (int row = 0; row < terms->count(); ++row)
            shown << terms->item(row)->text().toLower();
        QVERIFY(shown.indexOf("attention") < shown.indexOf("query"));
        QVERIFY(shown.indexOf("query") < shown.indexOf("value"));
        glossary->form()->filter->setText(QStringLiteral("zzzz"));
        QCOMPARE(glossary->shownKey(), QString());
        QCOMPARE(glossary->form()->explanation->toPlainText(),
                 QStringLiteral("No term matches “zzzz”."));
    }

    // #23: the arrow keys are named as Chinese keyboards and manuals name them.
    void theShortcutListNamesTheArrowKeysInChinese()
    {
        for (const char* code : {"en", "zh_CN"}) {
            if (currentLanguage() != QLatin1String(code))
                switchTo(code);
            m_window->findChild<QAction*>(QStringLiteral("actionShortcuts"))->trigger();
            auto* box = m_window->findChild<QMessageBox*>(QStringLiteral("shortcuts"));
            QVERIFY(box);
            const QString text = box->text();
            QVERIFY2(text.contains(QStringLiteral("←")) && text.contains(QStringLiteral("→")),
                     qPrintable(text));
            if (QLatin1String(code) == QLatin1String("zh_CN")) {
                QVERIFY2(text.contains(QStringLiteral("左箭头键")) &&
                             text.contains(QStringLiteral("右箭头键")),
                         qPrintable(text));
                QVERIFY2(!text.contains(QStringLiteral("左方向")), qPrintable(text));
            } else {
                QVERIFY2(text.contains(QStringLiteral("Left arrow key")), qPrintable(text));
            }
            box->close();
            delete box;
        }
    }

    // #23: the heads switched off are named in the interface's language, and Preferences' memory
    // sentence is one well-formed sentence in either language.
    void theModelPanelAndPreferencesSpeakChinese()
    {
        switchTo("zh_CN");
        QVERIFY(!m_window->modelPanel()->playground()); // the reverse demo: it has cross-attention
        m_window->modelPanel()->setHeadSwitchedOff({0, Block::Cross, 2}, true);
        settle();
        const QString output = m_window->modelPanel()->ui()->output->text();
        QVERIFY2(output.contains(QStringLiteral("第 0 层 · 交叉注意力 · 头 2")),
                 qPrintable(output));
        QVERIFY2(!output.contains(QStringLiteral("cross")), qPrintable(output));

        for (const char* code : {"zh_CN", "en"}) {
            applyLanguage(QLatin1String(code));
            PreferencesDialog preferences({});
            const QString hint = preferences.form()->memoryHint->text();
            QVERIFY2(!hint.contains(QStringLiteral("((")) && !hint.contains(QStringLiteral("))")),
                     qPrintable(hint));
            QVERIFY2(hint.count(QLatin1Char('(')) + hint.count(QChar(0xFF08)) <= 1,
                     qPrintable(hint));
            if (QLatin1String(code) == QLatin1String("zh_CN")) {
                QVERIFY2(hasHan(hint) && !hasEnglishWord(hint, {"GiB", "MiB", "KiB", "TiB"}),
                         qPrintable(hint));
            } else {
                QVERIFY2(hint.contains(QStringLiteral("80 % of the")), qPrintable(hint));
            }
        }
    }

    // #23: the head-importance window in Chinese: what it measured on, the metric, the blocks
    // and the heatmaps' titles and axes are all Chinese.
    void theHeadImportanceWindowSpeaksChinese()
    {
        switchTo("zh_CN");
        m_window->findChild<QAction*>(QStringLiteral("actionImportance"))->trigger();
        auto* dialog = m_window->experiments()->window<ImportanceDialog>("importance");
        QVERIFY(dialog && dialog->isVisible());
        dialog->ui()->examples->setValue(3);
        QSignalSpy measured(dialog, &ImportanceDialog::measured);
        QTest::mouseClick(dialog->ui()->measure, Qt::LeftButton);
        QVERIFY(measured.wait(120000));
        QVERIFY2(dialog->report(), qPrintable(dialog->ui()->summary->text()));
        const QString summary = dialog->ui()->summary->text();
        QVERIFY2(hasHan(summary) && !hasEnglishWord(summary, {"heldout", "txt"}),
                 qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("精确匹配准确率")), qPrintable(summary));
        QTableWidget* ranking = dialog->ui()->ranking;
        for (int column = 0; column < ranking->columnCount(); ++column)
            QVERIFY(hasHan(ranking->horizontalHeaderItem(column)->text()));
        for (int row = 0; row < ranking->rowCount(); ++row)
            QVERIFY2(hasHan(ranking->item(row, 2)->text()),
                     qPrintable(ranking->item(row, 2)->text()));
        const QList<HeatmapView*> maps = dialog->findChildren<HeatmapView*>();
        QVERIFY(!maps.isEmpty());
        for (const HeatmapView* map : maps) {
            const auto& m = map->heatmap();
            const QString title = QString::fromStdString(m.title);
            QVERIFY2(hasHan(title) && !hasEnglishWord(title), qPrintable(title));
            QVERIFY(hasHan(QString::fromStdString(m.matrix.rowAxis)));
            QVERIFY(hasHan(QString::fromStdString(m.matrix.columnAxis)));
            QVERIFY(m.matrix.rowLabels.empty()); // numbered, not "layer␣0"
        }
        dialog->close();
    }

    void theTourWalksAroundTheWindowWithTheKeyboard()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        GuidedTour* tour = m_window->startTour();
        QVERIFY(tour->isVisible());
        QCOMPARE(tour->stop(), 0);
        QCOMPARE(tour->target()->objectName(), QStringLiteral("source"));
        QTest::keyClick(tour, Qt::Key_Right);
        QCOMPARE(tour->stop(), 1);
        QVERIFY(tour->target());
        // The lesson behind the tour did not move with the arrow.
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("scores"));
        QTest::keyClick(tour, Qt::Key_Left);
        QCOMPARE(tour->stop(), 0);
        for (int i = 0; i < tour->stopCount() - 1; ++i) {
            QTest::keyClick(tour, Qt::Key_Right);
            QVERIFY2(tour->stop() == i + 1, "a stop was skipped");
        }
        QPointer<GuidedTour> last = tour;
        QTest::keyClick(tour, Qt::Key_Escape);
        QTRY_VERIFY(!last);
    }

    void aFirstStartOffersTheTourOnce()
    {
        auto* offer = m_window->findChild<QPushButton*>(QStringLiteral("tourOffer"));
        QVERIFY(offer);
        offer->click();
        QVERIFY(m_window->findChild<GuidedTour*>());
        // A second start does not offer it again.
        delete m_window;
        m_window = new MainWindow;
        m_window->setAttribute(Qt::WA_DeleteOnClose);
        m_window->show();
        settle();
        QVERIFY(!m_window->findChild<QPushButton*>(QStringLiteral("tourOffer")));
    }

    void theShortcutListNamesTheMenusShortcuts()
    {
        auto* help = m_window->findChild<QAction*>(QStringLiteral("actionShortcuts"));
        QVERIFY(help);
        help->trigger();
        auto* box = m_window->findChild<QMessageBox*>(QStringLiteral("shortcuts"));
        QVERIFY(box);
        for (const char* shortcut : {"F5", "F1", "Ctrl+O", "Ctrl+S", "Ctrl+I"})
            QVERIFY2(box->text().contains(QLatin1String(shortcut)), shortcut);
        box->close();
    }

    void presentationModeIsDrivenByTheKeyboardAndMarksCells()
    {
        auto* presentation = m_window->findChild<QAction*>(QStringLiteral("actionPresentation"));
        auto* settings = m_window->findChild<QWidget*>(QStringLiteral("settingsPanel"));
        auto* title = m_window->stepPanel()->findChild<QLabel*>(QStringLiteral("stepPosition"));
        auto* formula = m_window->stepPanel()->findChild<QLabel*>(QStringLiteral("formula"));
        QVERIFY(presentation && settings && title && formula);
        const double titleSize = title->font().pointSizeF();
        const double formulaSize = formula->font().pointSizeF();
        QVERIFY(settings->isVisible());

        presentation->trigger();
        QVERIFY(presentation->isChecked());
        QVERIFY(!settings->isVisible());
        // The title and the formula grow more than the window's font (×1.6).
        QVERIFY(title->font().pointSizeF() > titleSize * 1.7);
        QVERIFY(formula->font().pointSizeF() > formulaSize * 1.7);

        // Digits choose steps: 7 is the softmax, 0 the tenth step.
        QTest::keyClick(m_window->stepPanel(), Qt::Key_7);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("softmax"));
        QTest::keyClick(m_window->stepPanel(), Qt::Key_0);
        QCOMPARE(m_window->stepPanel()->step(),
                 attnviz::lesson::shownLessonSteps(*m_window->walkthrough()->trace)[9]);
        QTest::keyClick(m_window->stepPanel(), Qt::Key_7);
        // H: head 0 alone, then head 1, …, then every head again.
        HeadGridView* grid = m_window->stepPanel()->grid();
        const int heads = static_cast<int>(grid->matrices().size());
        QVERIFY(heads >= 2);
        for (int head = 0; head < heads; ++head) {
            QTest::keyClick(m_window->stepPanel(), Qt::Key_H);
            QCOMPARE(grid->focusedHead(), head);
        }
        QTest::keyClick(m_window->stepPanel(), Qt::Key_H);
        QCOMPARE(grid->focusedHead(), -1);

        // A click marks the cell in every head instead of zooming; Shift marks the row; the
        // same click again clears it.
        HeatmapView* first = grid->visibleViews().front();
        QTest::mouseClick(first, Qt::LeftButton, {}, first->cellCentre(2, 3));
        QCOMPARE(grid->focusedHead(), -1);
        QVERIFY(grid->mark());
        QCOMPARE(grid->mark()->row, 2);
        QCOMPARE(grid->mark()->column, 3);
        QTest::mouseClick(first, Qt::LeftButton, Qt::ShiftModifier, first->cellCentre(4, 1));
        QCOMPARE(grid->mark()->kind, attnviz::render::Highlight::Kind::Row);
        QTest::mouseClick(first, Qt::LeftButton, Qt::ShiftModifier, first->cellCentre(4, 5));
        QVERIFY(!grid->mark());
        QTest::mouseClick(first, Qt::LeftButton, {}, first->cellCentre(1, 1));
        // The mark follows the lesson to the next step of the same shape.
        QTest::keyClick(m_window->stepPanel(), Qt::Key_6);
        QVERIFY(grid->mark());

        // S shows the settings (and lets digits reach them); Esc leaves.
        QTest::keyClick(m_window->stepPanel(), Qt::Key_S);
        QVERIFY(settings->isVisible());
        QTest::keyClick(m_window->stepPanel(), Qt::Key_2);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("masked"));
        QTest::keyClick(m_window->stepPanel(), Qt::Key_Escape);
        QVERIFY(!presentation->isChecked());
        QVERIFY(settings->isVisible());
        QVERIFY(!grid->mark());
        QCOMPARE(title->font().pointSizeF(), titleSize);
        // Digits are not shortcuts outside presentation mode.
        QTest::keyClick(m_window->stepPanel(), Qt::Key_3);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("masked"));
    }

    void theAnimationsShowTheTracesOwnNumbersAndCanBeSkipped()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        auto* animate = m_window->stepPanel()->findChild<QPushButton*>(QStringLiteral("animate"));
        QVERIFY(animate && animate->isVisibleTo(m_window));
        m_window->stepPanel()->grid()->focusHead(2);
        animate->click();
        StepAnimation* animation = m_window->stepPanel()->animation();
        QVERIFY(animation->isVisible());
        QVERIFY(animation->running());
        const auto& trace = *m_window->walkthrough()->trace;
        const auto query = trace.queryLength() - 1; // no mark: the last query
        // First frame: the masked scores; last frame: the weights, both the trace's.
        animation->setProgress(0);
        std::vector<double> row = animation->shownRow();
        QCOMPARE(row.size(), static_cast<std::size_t>(trace.keyLength()));
        for (std::size_t k = 0; k < row.size(); ++k)
            QCOMPARE(
                row[k],
                static_cast<double>(trace.masked.at({0, 2, query, static_cast<std::int64_t>(k)})));
        animation->skip();
        QVERIFY(!animation->running());
        QCOMPARE(animation->progress(), 1.0);
        row = animation->shownRow();
        double sum = 0;
        for (std::size_t k = 0; k < row.size(); ++k) {
            QCOMPARE(
                row[k],
                static_cast<double>(trace.weights.at({0, 2, query, static_cast<std::int64_t>(k)})));
            sum += row[k];
        }
        QVERIFY(std::abs(sum - 1) < 1e-5);
        QVERIFY(animation->caption().contains(QStringLiteral("sum to 1")));
        QTest::keyClick(animation, Qt::Key_Escape);
        QVERIFY(!animation->isVisible());

        // The weighted sum ends on the context row of the marked query.
        m_window->stepPanel()->setStep(attnviz::test::step("context"));
        m_window->stepPanel()->grid()->setMark(
            attnviz::render::Highlight{attnviz::render::Highlight::Kind::Cell, 3, 0});
        QVERIFY(m_window->stepPanel()->animate());
        animation->skip();
        row = animation->shownRow();
        QCOMPARE(row.size(), static_cast<std::size_t>(trace.valueSize()));
        for (std::size_t c = 0; c < row.size(); ++c)
            QCOMPARE(
                row[c],
                static_cast<double>(trace.context.at({0, 2, 3, static_cast<std::int64_t>(c)})));

        // Split and concat animate; the scores have no animation.
        m_window->stepPanel()->setStep(attnviz::test::step("split"));
        QVERIFY(!animation->isVisible()); // a step change ends it
        QVERIFY(m_window->stepPanel()->animate());
        m_window->stepPanel()->setStep(attnviz::test::step("concat"));
        QVERIFY(m_window->stepPanel()->animate());
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        QVERIFY(!animate->isVisibleTo(m_window));
        QVERIFY(!m_window->stepPanel()->animate());

        // View ▸ Animations off hides the button, and is kept.
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        auto* setting = m_window->findChild<QAction*>(QStringLiteral("actionAnimations"));
        QVERIFY(setting && setting->isChecked());
        setting->trigger();
        QVERIFY(!animate->isVisibleTo(m_window));
        QCOMPARE(QSettings().value(QStringLiteral("view/animations")).toBool(), false);
    }

    void aboutNamesTheLibraryVersions()
    {
        auto* about = m_window->findChild<QAction*>(QStringLiteral("actionAbout"));
        QVERIFY(about);
        QTimer::singleShot(0, this, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
                    QVERIFY(box->text().contains(QLatin1String("Eigen 3.4")));
                    QVERIFY(box->text().contains(QLatin1String(qVersion())));
                    QVERIFY(box->text().contains(QLatin1String("QCustomPlot 2")));
                    box->accept();
                }
        });
        about->trigger(); // QMessageBox::about runs its own loop until the timer accepts it
    }
};

QTEST_MAIN(ClassroomTest)
#include "classroom_test.moc"
