// What the window shows when something cannot be shown (#11): settings that cannot be computed
// clear the heatmaps and say why, a model that does not run leaves no output of an earlier one, a
// folder that is not a model does not stay in the source list, and a saved model that broke since
// the last start gives way to the reverse demo.
#include "app/dialogs/preferences_dialog.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/main_window.h"
#include "app/window/picture_drop.h"
#include "app/window/settings_store.h"
#include "app/window/walkthrough_runner.h"
#include "app_test_steps.h"
#include "io/builtin_models.h"
#include "support/picture_files.h"
#include "ui_input_panel.h"
#include "ui_model_panel.h"
#include "ui_preferences_dialog.h"
#include "window_test_support.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <filesystem>

using namespace attnviz::app;
namespace fs = std::filesystem;

class RobustnessTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    Ui::InputPanel* input() const { return m_window->inputPanel()->ui(); }
    Ui::ModelPanel* model() const { return m_window->modelPanel()->ui(); }

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window, 20000)); }

    void open(std::unique_ptr<MainWindow> window = std::make_unique<MainWindow>())
    {
        m_window = std::move(window);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        settle();
    }

    void openModel(const QString& folder, const QString& text = {})
    {
        attnviz::lesson::ModelSource r;
        r.folder = folder.toStdString();
        r.text = text.toStdString();
        m_window->modelPanel()->setRequest(r);
        settle();
    }

    std::size_t shownHeatmaps() const
    {
        return m_window->stepPanel()->grid()->visibleViews().size();
    }

    /// The label is shown and, once layouts have settled, as tall as its wrapped text (a form
    /// layout once gave the problem line no height at all, so the reason could not be seen). The
    /// height the text needs comes from the font: asking the label would refresh what the layout
    /// reads.
    bool readable(QLabel* label) const
    {
        const auto fits = [&] {
            const QRect needed = label->fontMetrics().boundingRect(
                QRect(0, 0, label->contentsRect().width(), 100000), Qt::TextWordWrap,
                label->text());
            return label->isVisibleTo(m_window.get()) && !label->text().isEmpty() &&
                label->contentsRect().height() >= needed.height();
        };
        for (int waited = 0; waited < 2000 && !fits(); waited += 20)
            QTest::qWait(20);
        if (!fits())
            qWarning("label %dx%d, text needs %d: %s", label->contentsRect().width(),
                     label->contentsRect().height(),
                     label->fontMetrics()
                         .boundingRect(QRect(0, 0, label->contentsRect().width(), 100000),
                                       Qt::TextWordWrap, label->text())
                         .height(),
                     qPrintable(label->text()));
        return fits();
    }

    bool listed(const QString& folder) const { return model()->source->findData(folder) >= 0; }

    /// A copy of the reverse demo in `dir`/reverse, to damage.
    static QString copyOfReverse(const QTemporaryDir& dir)
    {
        const fs::path to = fs::path(dir.path().toStdString()) / "reverse-copy";
        fs::create_directories(to);
        for (const char* f : {"config.json", "model.safetensors", "vocab.json"})
            fs::copy_file(attnviz::io::builtInModelsFolder() / "reverse" / f, to / f);
        return QString::fromStdString(to.string());
    }

    /// Records `folder` (with the text "abc") as the model the last session showed.
    static void saveAsLastModel(const QString& folder)
    {
        QSettings store;
        attnviz::lesson::ModelSource saved;
        saved.folder = folder.toStdString();
        saved.text = "abc";
        saveModelRequest(store, saved);
    }

    /// Starts the app with `folder` as the model saved last time; checks it opened the reverse
    /// demo instead and said so in one sentence.
    void startsOnReverseInsteadOf(const QString& folder)
    {
        saveAsLastModel(folder);
        open();
        QCOMPARE(m_window->modelPanel()->request().folder, std::string("reverse"));
        QVERIFY(!listed(folder));
        const QString notice = model()->problem->text();
        qInfo("%s", qPrintable(notice));
        QVERIFY2(notice.contains(QFileInfo(folder).fileName()) &&
                     notice.contains(QStringLiteral("reverse demo")),
                 qPrintable(notice));
        QVERIFY2(notice.count(QStringLiteral(". ")) == 0, qPrintable(notice)); // one sentence
        QVERIFY(readable(model()->problem));
        QVERIFY(m_window->walkthrough());
        QVERIFY(m_window->modelResult().run);
        QVERIFY(model()->output->text().contains(QStringLiteral("Output")));
        // Quitting now saves the demo, so the next start opens it without a word.
        m_window->close();
        m_window.reset();
        open();
        QCOMPARE(m_window->modelPanel()->request().folder, std::string("reverse"));
        QVERIFY2(model()->problem->text().isEmpty(), qPrintable(model()->problem->text()));
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init() { QSettings().clear(); }

    void cleanup() { m_window.reset(); }

    // 1. Old heatmaps do not stay on screen once the settings cannot be computed.
    void invalidSettingsClearTheHeatmapsAndSayWhy()
    {
        open();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{}); // the playground
        settle();
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        QCOMPARE(shownHeatmaps(), 4u);
        input()->heads->setValue(3); // D = 16 cannot be split into 3 heads
        settle();
        QVERIFY(!m_window->walkthrough());
        QCOMPARE(shownHeatmaps(), 0u);
        QVERIFY(m_window->stepPanel()->shapeText().isEmpty());
        QVERIFY(m_window->stepPanel()->formulaText().isEmpty());
        QVERIFY2(m_window->stepPanel()->reason().contains(QStringLiteral("marked in red")),
                 qPrintable(m_window->stepPanel()->reason()));
        QVERIFY(input()->queryKeySizeError->isVisibleTo(m_window.get()));
        // Stepping on shows no heatmap either; fixing the settings brings them back.
        QTest::keyClick(m_window.get(), Qt::Key_Right);
        QCOMPARE(shownHeatmaps(), 0u);
        input()->heads->setValue(2);
        settle();
        QVERIFY(m_window->walkthrough());
        QVERIFY(m_window->stepPanel()->reason().isEmpty());
        QCOMPARE(shownHeatmaps(), 2u);
        // An empty sentence too.
        input()->querySentences->setPlainText(QString());
        settle();
        QCOMPARE(shownHeatmaps(), 0u);
        QVERIFY(!m_window->walkthrough());
    }

    void aComputationStartedBeforeTheSettingsBrokeIsNotShown()
    {
        open();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        // The first edit starts a computation; the second is refused before it has finished,
        // so the first one's result is stale when it arrives.
        input()->heads->setValue(8);
        input()->modelWidth->setValue(10);
        settle();
        QVERIFY(!m_window->walkthrough());
        QCOMPARE(shownHeatmaps(), 0u);
    }

    // Found by the stress test (seed 31, by timing): an edit made after a computation had
    // finished but before its result arrived started at once, leaving the edit queued before it
    // to run last, so the window settled on settings that were no longer chosen.
    void theLastEditIsTheOneShown()
    {
        open();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QStringList words;
        for (int i = 0; i < 250; ++i)
            words << QStringLiteral("w%1").arg(i);
        input()->querySentences->setPlainText(words.join(QLatin1Char(' ')));
        input()->modelWidth->setValue(512); // A: a computation that takes a while
        input()->seed->setValue(1); // B: waits behind A
        QThread::msleep(1500); // A finishes on its thread; its result is not delivered yet
        input()->seed->setValue(2); // C: the newest
        settle();
        QVERIFY(m_window->walkthrough());
        const auto* source =
            std::get_if<attnviz::lesson::PlaygroundSource>(&m_window->walkthrough()->source);
        QVERIFY(source);
        QCOMPARE(source->settings.seed, 2u);
    }

    void aPlaygroundResultDoesNotReplaceAModel()
    {
        open();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        const auto playground = m_window->walkthrough();
        QVERIFY(playground);
        openModel(QStringLiteral("reverse"));
        const auto block = m_window->walkthrough();
        QVERIFY(std::holds_alternative<attnviz::lesson::ModelBlockSource>(block->source));
        // A playground computation that finishes only now (a slow one, started before the demo
        // was chosen) is not shown over the demo's block.
        emit m_window->session()->playgroundRunner()->computed(playground);
        QCOMPARE(m_window->walkthrough(), block);
        QCOMPARE(m_window->stepPanel()->walkthrough(), block);
    }

    // 2. A model that does not run leaves no output or heatmaps of the one before.
    void aFailedRunLeavesNoStaleOutput()
    {
        open(); // the reverse demo, with its output
        QVERIFY(model()->output->text().contains(QStringLiteral("noitnetta")));
        QVERIFY(shownHeatmaps() > 0);
        model()->text->setText(QStringLiteral("Hello")); // "H" is not in its vocabulary
        QMetaObject::invokeMethod(model()->text, "editingFinished");
        settle();
        QVERIFY2(model()->problem->text().contains(QStringLiteral("\"H\"")),
                 qPrintable(model()->problem->text()));
        QVERIFY2(model()->output->text().isEmpty(), qPrintable(model()->output->text()));
        QVERIFY(!m_window->walkthrough());
        QCOMPARE(shownHeatmaps(), 0u);
        QVERIFY(m_window->stepPanel()->reason().contains(QStringLiteral("\"H\"")));
        QVERIFY(readable(model()->problem));
        QCOMPARE(model()->layer->count(), 0); // nothing to choose from
        model()->overview->setChecked(true);
        QVERIFY(!model()->overview->isChecked()); // no run, no overview

        // Another model that cannot read its text: its description, not reverse's output.
        openModel(QStringLiteral("genesis"), QStringLiteral("ZZZ"));
        QVERIFY(model()->description->text().contains(QStringLiteral("genesis")));
        QVERIFY2(model()->output->text().isEmpty(), qPrintable(model()->output->text()));
    }

    void attentionsFromElsewhereShowNoOutputOfTheDemo()
    {
        open();
        QVERIFY(!model()->output->text().isEmpty());
        openModel(QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/attentions/gpt_layers.safetensors"));
        QVERIFY(model()->description->text().contains(QStringLiteral("computed elsewhere")));
        QVERIFY2(model()->output->text().isEmpty(), qPrintable(model()->output->text()));
    }

    void aModelThatFailsToLoadLeavesNothingStale()
    {
        // From a failed run to a folder that does not load: neither the old output nor the old
        // description stays.
        open();
        model()->text->setText(QStringLiteral("Hello"));
        QMetaObject::invokeMethod(model()->text, "editingFinished");
        settle();
        QTemporaryDir dir;
        openModel(dir.path());
        QVERIFY(model()->output->text().isEmpty());
        QVERIFY(model()->problem->text().contains(QStringLiteral("config.json")));
        QVERIFY(!m_window->walkthrough());
        QCOMPARE(shownHeatmaps(), 0u);
    }

    // 3. A folder that is not a model is not kept in the source list, and the panel says why.
    void aFolderThatIsNotAModelIsNotKept()
    {
        open();
        const auto shown = m_window->walkthrough();
        const QString output = model()->output->text();
        QTemporaryDir empty;
        openModel(empty.path(), QStringLiteral("abc"));
        QVERIFY(!listed(empty.path()));
        // The panel names what the window still shows: the demo, its text and its output.
        QCOMPARE(m_window->modelPanel()->request().folder, std::string("reverse"));
        QCOMPARE(model()->text->text(), QStringLiteral("attention"));
        QCOMPARE(model()->output->text(), output);
        QVERIFY(model()->description->text().contains(QStringLiteral("reverse")));
        QCOMPARE(m_window->walkthrough(), shown);
        const QString why = model()->problem->text();
        QVERIFY2(why.contains(QFileInfo(empty.path()).fileName()) &&
                     why.contains(QStringLiteral("config.json")),
                 qPrintable(why));
        QVERIFY(readable(model()->problem));

        // The same from the playground, with a folder of reference files only.
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        const QString references = QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/models/genesis");
        openModel(references);
        QVERIFY(!listed(references));
        QVERIFY(m_window->modelPanel()->playground());
        QVERIFY(m_window->inputPanel()->isVisibleTo(m_window.get()));
        QVERIFY(m_window->walkthrough());
        QVERIFY(readable(model()->problem));
        QVERIFY2(model()->problem->text().contains(QStringLiteral("config.json")),
                 qPrintable(model()->problem->text()));

        // A file that is no attention import, and a folder that does not exist.
        for (const QString& bad :
             {QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/attentions/bad_gap.safetensors"),
              empty.path() + QStringLiteral("/missing")}) {
            openModel(bad);
            QVERIFY2(!listed(bad), qPrintable(bad));
            QVERIFY(m_window->modelPanel()->playground());
        }
        // A good folder stays.
        const QString good = QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/models/encoder_only");
        openModel(good, QStringLiteral("abc"));
        QVERIFY(listed(good));
        QVERIFY(model()->problem->text().isEmpty());
    }

    void cancellingTheFirstModelGoesBackToThePlayground()
    {
        open();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        attnviz::lesson::ModelSource r;
        r.folder = "genesis";
        m_window->modelPanel()->setRequest(r);
        model()->cancel->click();
        settle();
        QVERIFY(m_window->modelPanel()->playground());
        QVERIFY(m_window->inputPanel()->isVisibleTo(m_window.get()));
        QVERIFY(!model()->progressRow->isVisibleTo(m_window.get()));
        QVERIFY(m_window->walkthrough());
    }

    // Found by the stress test: a view made while the grid was off screen appeared beside the
    // focused head once the grid was shown again.
    void aFocusedHeadStaysAloneAfterTheOverview()
    {
        open(); // reverse: 4 heads
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_window->stepPanel()->grid()->focusHead(3);
        QCOMPARE(shownHeatmaps(), 1u);
        model()->overview->setChecked(true);
        openModel(QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/models/decoder_postnorm"),
                  QStringLiteral("abc")); // 5 heads: a fifth view is made
        QVERIFY(model()->overview->isChecked());
        model()->overview->setChecked(false);
        QApplication::processEvents();
        QCOMPARE(m_window->stepPanel()->grid()->focusedHead(), 3);
        QCOMPARE(shownHeatmaps(), 1u);
        m_window->stepPanel()->grid()->showAll();
        QCOMPARE(shownHeatmaps(), 5u);
    }

    // 4. A saved model that broke since the last start gives way to the reverse demo.
    void aSavedModelWithAVocabularyFolderOpensTheDemo()
    {
        QTemporaryDir dir;
        const QString folder = copyOfReverse(dir);
        fs::remove(folder.toStdString() + "/vocab.json");
        fs::create_directory(folder.toStdString() + "/vocab.json");
        startsOnReverseInsteadOf(folder);
    }

    void aSavedModelWithoutConfigOpensTheDemo()
    {
        QTemporaryDir dir;
        const QString folder = copyOfReverse(dir);
        fs::remove(folder.toStdString() + "/config.json");
        startsOnReverseInsteadOf(folder);
    }

    void aSavedModelThatIsGoneOpensTheDemo()
    {
        QTemporaryDir dir;
        startsOnReverseInsteadOf(dir.path() + QStringLiteral("/gone"));
    }

    void aSavedImportThatIsDamagedOpensTheDemo()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("attentions.safetensors"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a safetensors file");
        f.close();
        startsOnReverseInsteadOf(file);
    }

    void aMemoryLimitFromPreferencesRefusesARunAndIsKept()
    {
        open();
        openModel(QStringLiteral("reverse"), QStringLiteral("abcdefgh"));
        QVERIFY2(model()->output->text().contains(QStringLiteral("hgfedcba")),
                 qPrintable(model()->output->text() + " | " + model()->problem->text()));

        const auto setLimit = [this](const QString& text, bool acceptable) {
            m_window->findChild<QAction*>(QStringLiteral("actionPreferences"))->trigger();
            PreferencesDialog* dialog = nullptr;
            QTRY_VERIFY((dialog = m_window->findChild<PreferencesDialog*>()) != nullptr);
            dialog->form()->memoryLimit->setText(text);
            QPushButton* ok = dialog->form()->buttons->button(QDialogButtonBox::Ok);
            QCOMPARE(ok->isEnabled(), acceptable);
            QCOMPARE(dialog->form()->memoryError->isVisibleTo(dialog), !acceptable);
            if (acceptable)
                ok->click();
            else
                dialog->reject();
            QTRY_VERIFY(!m_window->findChild<PreferencesDialog*>());
            settle();
        };
        setLimit(QStringLiteral("lots"), false);
        setLimit(QStringLiteral("64"), false); // 64 bytes: surely a missing unit
        // The reverse demo on 14 tokens needs about 7 MiB: 2 MiB refuses it, before it runs.
        setLimit(QStringLiteral("2M"), true);
        const QString problem = model()->problem->text();
        QVERIFY2(problem.contains(QStringLiteral("needs about")) &&
                     problem.contains(QStringLiteral("the memory limit you set allows 2.0 MiB")),
                 qPrintable(problem));
        QVERIFY(readable(model()->problem));
        QVERIFY(model()->output->text().isEmpty());
        QCOMPARE(shownHeatmaps(), std::size_t{0});

        // Kept for the next start, and shown back in the field as a size.
        QVERIFY(m_window->close());
        open();
        QVERIFY(model()->problem->text().contains(QStringLiteral("allows 2.0 MiB")));
        m_window->findChild<QAction*>(QStringLiteral("actionPreferences"))->trigger();
        PreferencesDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<PreferencesDialog*>()) != nullptr);
        QCOMPARE(dialog->form()->memoryLimit->text(), QStringLiteral("2.0MiB"));
        dialog->reject();
        QTRY_VERIFY(!m_window->findChild<PreferencesDialog*>());

        // No limit of one's own: the same model runs again at once.
        setLimit(QString(), true);
        QVERIFY(model()->problem->text().isEmpty());
        QVERIFY(model()->output->text().contains(QStringLiteral("hgfedcba")));
        QVERIFY(shownHeatmaps() > 0);
    }

    // #45: a picture bomb dropped on the window is refused in the model panel's sentence, as the
    // command line refuses it, while the window goes on answering: the drop returns at once and
    // the event loop turns within 100 ms.
    void aDroppedPictureBombIsRefusedWhileTheWindowAnswers()
    {
        open();
        attnviz::lesson::ModelSource shapes;
        shapes.folder = "shapes";
        m_window->modelPanel()->setRequest(shapes);
        settle();
        QTemporaryDir dir;
        attnviz::test::PngPicture surplus;
        surplus.width = surplus.height = 48;
        surplus.samples.assign(48 * 48 * 3, 90);
        surplus.surplusZeros = std::uint64_t{16} << 30;
        const std::pair<QString, std::string> bombs[] = {
            {QStringLiteral("scans.jpg"), attnviz::test::progressiveJpeg(1024, 1024, 2000)},
            {QStringLiteral("surplus.png"), attnviz::test::pngFile(surplus)}};
        for (const auto& [name, bytes] : bombs) {
            const QString path = dir.filePath(name);
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes.data(), static_cast<qint64>(bytes.size()));
            file.close();
            QMimeData data;
            data.setUrls({QUrl::fromLocalFile(path)});
            QElapsedTimer clock;
            clock.start();
            QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, {});
            QCoreApplication::sendEvent(m_window.get(), &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, {});
            QCoreApplication::sendEvent(m_window.get(), &drop);
            bool answered = false;
            QTimer::singleShot(0, m_window.get(), [&] { answered = true; });
            QTRY_VERIFY_WITH_TIMEOUT(answered, 100);
            QVERIFY2(clock.elapsed() < 100, qPrintable(QString::number(clock.elapsed())));
            settle();
            QCOMPARE(model()->picture->text(), path);
        }
        // The surplus PNG, read to its last row, is what the model shows; the JPEG was refused.
        const auto run = m_window->modelResult().run;
        QVERIFY(run && run->picture);
        QCOMPARE(run->picture->rgb.front(), std::uint8_t{90});

        const QString scans = dir.filePath(QStringLiteral("scans.jpg"));
        QVERIFY(m_window->pictureDrop()->open(scans));
        settle();
        const QString problem = model()->problem->text();
        QVERIFY2(problem.contains(QStringLiteral("more than 100 scans")), qPrintable(problem));
        // docs/screenshots/69-picture-bomb.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_BOMB_SHOT"))
            QVERIFY(m_window->grab().save(qEnvironmentVariable("ATTNVIZ_BOMB_SHOT")));
        QVERIFY(readable(model()->problem));
        QVERIFY(model()->output->text().isEmpty());
    }

    void aSavedModelThatStillWorksOpensWithoutANotice()
    {
        QTemporaryDir dir;
        const QString folder = copyOfReverse(dir);
        saveAsLastModel(folder);
        open();
        QCOMPARE(m_window->modelPanel()->request().folder, folder.toStdString());
        QVERIFY(model()->problem->text().isEmpty());
        QVERIFY(model()->output->text().contains(QStringLiteral("cba")));
    }
};

QTEST_MAIN(RobustnessTest)

#include "robustness_test.moc"
