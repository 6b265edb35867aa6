// Saved lessons (#13): File ▸ Save and Open keep the source, the text, the block, the step, the
// view, the heads switched off and the language; damaged, newer, missing and special files are
// refused in one sentence with the window unchanged; the recent list opens what was saved; and a
// window closed the usual way reopens where it was.
#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/language.h"
#include "app/window/lesson_files.h"
#include "app/window/main_window.h"
#include "app/window/window_lesson.h"
#include "app_test_steps.h"
#include "window_test_support.h"

#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace attnviz::app;
using attnviz::engine::Block;
using attnviz::lesson::LessonFile;

class LessonTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static std::unique_ptr<MainWindow> openWindow()
    {
        return attnviz::test::shown(std::make_unique<MainWindow>());
    }

    // The reverse demo on its encoder's layer 1 self-attention, softmax step, head 3 in focus,
    // layer 0's cross head 2 switched off and one colour range for all heads: nothing a fresh
    // window shows.
    static void prepareModelLesson(MainWindow& window)
    {
        window.modelPanel()->setHeadSwitchedOff({0, Block::Cross, 2}, true);
        QVERIFY(attnviz::test::waitUntilIdle(window));
        window.modelPanel()->setChoice({1, Block::Self, -1});
        window.stepPanel()->setStep(attnviz::test::step("softmax"));
        window.stepPanel()->setSharedColourRange(true);
        window.stepPanel()->grid()->focusHead(3);
        QCOMPARE(window.stepPanel()->grid()->focusedHead(), 3);
    }

    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }

    static QString shownMessage(MainWindow& window)
    {
        const auto boxes = window.findChildren<QMessageBox*>();
        QString text;
        for (QMessageBox* box : boxes)
            if (box->isVisible())
                text = box->text();
        for (QMessageBox* box : boxes)
            box->close();
        return text;
    }

    // Every refusal leaves the window as it was and says why in one sentence.
    void expectRefused(const QString& file, const QString& named)
    {
        auto window = openWindow();
        QVERIFY(window);
        const LessonFile before = window->lesson()->current();
        QVERIFY(!window->lesson()->openFile(file));
        const QString message = shownMessage(*window);
        QVERIFY2(message.contains(named), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QCOMPARE(window->lesson()->current(), before);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void init()
    {
        QSettings().clear(); // a first start: the reverse demo
        applyLanguage(QStringLiteral("en"));
    }

    void aModelLessonOpensOnTheSameBlockStepHeadAndSwitchedOffHeads()
    {
        LessonFile saved;
        {
            auto window = openWindow();
            QVERIFY(window);
            prepareModelLesson(*window);
            saved = window->lesson()->current();
            QCOMPARE(window->lesson()->saveFile(path("reverse.attnviz")), QString());
        }
        QCOMPARE(saved.model.folder, std::string("reverse"));
        QCOMPARE(saved.model.ablation.heads.size(), 1u);

        QSettings().clear();
        auto window = openWindow();
        QVERIFY(window);
        QVERIFY(window->lesson()->current() != saved); // a first start shows something else
        QVERIFY(window->lesson()->openFile(path("reverse.attnviz")));
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QCOMPARE(window->lesson()->current(), saved);
        QCOMPARE(window->modelPanel()->choice().layer, 1);
        QCOMPARE(window->modelPanel()->choice().block, Block::Self);
        QCOMPARE(window->stepPanel()->step(), attnviz::test::step("softmax"));
        QCOMPARE(window->stepPanel()->grid()->focusedHead(), 3);
        QVERIFY(window->stepPanel()->sharedColourRange());
        QCOMPARE(window->modelPanel()->request().ablation.heads, saved.model.ablation.heads);
    }

    // A decoder-only demo that continues the text: the lesson opens on the decoding step it
    // names, not on the whole output.
    void aLessonOpensOnItsDecodingStep()
    {
        QFile file(path("genesis.attnviz"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"attnviz-lesson\", \"version\": 1, \"language\": \"en\",\n"
                   " \"model\": {\"folder\": \"genesis\", \"text\": \"and god said\", "
                   "\"generate\": 4},\n"
                   " \"view\": {\"step\": \"softmax\", \"layer\": 2, \"block\": "
                   "\"masked_self\", \"decoding_step\": 2}}\n");
        file.close();
        auto window = openWindow();
        QVERIFY(window);
        QVERIFY(window->lesson()->openFile(path("genesis.attnviz")));
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QCOMPARE(window->modelPanel()->choice().layer, 2);
        QCOMPARE(window->modelPanel()->choice().decodingStep, 2);
        // Step 2 reads the prompt's 12 characters and the 2 written before it.
        const auto maps = window->stepPanel()->grid()->matrices();
        QVERIFY(!maps.empty());
        QCOMPARE(maps.front().rows(), 14);
    }

    void aPlaygroundLessonKeepsEverySetting()
    {
        auto window = openWindow();
        QVERIFY(window);
        window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        attnviz::lesson::PlaygroundSettings settings;
        settings.querySentences = {"我 爱 注意力", "the cat"};
        settings.modelWidth = 12;
        settings.heads = 3;
        settings.mask = attnviz::lesson::MaskKind::Causal;
        settings.ablatedHeads = {1};
        settings.seed = 7;
        window->inputPanel()->setSettings(settings);
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        window->stepPanel()->setStep(attnviz::test::step("masked"));
        window->stepPanel()->setBatchIndex(1);
        window->stepPanel()->setNumbersInCells(true);
        const LessonFile saved = window->lesson()->current();
        QVERIFY(saved.model.playground());
        QCOMPARE(window->lesson()->saveFile(path("playground.attnviz")), QString());

        window->inputPanel()->setSettings(attnviz::lesson::PlaygroundSettings{});
        window->stepPanel()->setStep(0);
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QVERIFY(window->lesson()->current() != saved);
        QVERIFY(window->lesson()->openFile(path("playground.attnviz")));
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QCOMPARE(window->lesson()->current(), saved);
        QCOMPARE(window->inputPanel()->settings(), settings);
        QCOMPARE(window->stepPanel()->batchIndex(), 1);
        QCOMPARE(window->walkthrough()->trace->numHeads(), 3);
    }

    void damagedNewerAndSpecialFilesAreRefusedAndChangeNothing()
    {
        const auto write = [this](const char* name, const QByteArray& bytes) {
            QFile file(path(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        };
        write("truncated.attnviz", "{\"format\": \"attnviz-lesson\", \"version\": 1, \"playgr");
        write("newer.attnviz",
              "{\"format\": \"attnviz-lesson\", \"version\": 9, \"playground\": {}}");
        write("wrong.attnviz",
              "{\"format\": \"attnviz-lesson\", \"version\": 1, "
              "\"playground\": {}, \"view\": {\"step\": \"attention\"}}");
        write("other.json", "{\"vocab_size\": 50257}");
        expectRefused(path("truncated.attnviz"), QStringLiteral("not valid JSON"));
        expectRefused(path("newer.attnviz"), QStringLiteral("newer AttnViz"));
        expectRefused(path("wrong.attnviz"), QStringLiteral("“view.step”"));
        expectRefused(path("other.json"), QStringLiteral("not an AttnViz lesson"));
        expectRefused(path("missing.attnviz"), QStringLiteral("missing.attnviz"));
        expectRefused(m_dir.path(), QStringLiteral("directory"));
        QVERIFY(::mkfifo(path("fifo.attnviz").toLocal8Bit().constData(), 0600) == 0);
        expectRefused(path("fifo.attnviz"), QStringLiteral("fifo.attnviz"));
    }

    void aFailedSaveSaysWhyAndLeavesNoFile()
    {
        auto window = openWindow();
        QVERIFY(window);
        const QString target = path("no-such-folder/lesson.attnviz");
        const QString error = window->lesson()->saveFile(target);
        QVERIFY(!error.isEmpty());
        QVERIFY2(shownMessage(*window) == error, qPrintable(error));
        QVERIFY(!QFile::exists(target));
        // Saving over a lesson replaces it whole.
        QFile old(path("over.attnviz"));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write(QByteArray(100000, 'x'));
        old.close();
        QCOMPARE(window->lesson()->saveFile(path("over.attnviz")), QString());
        const LessonRead read = readLessonFile(path("over.attnviz"));
        QVERIFY2(read.lesson, qPrintable(read.error));
        QCOMPARE(*read.lesson, window->lesson()->current());
    }

    void theRecentListOpensWhatWasSaved()
    {
        auto window = openWindow();
        QVERIFY(window);
        window->stepPanel()->setStep(attnviz::test::step("scores"));
        QCOMPARE(window->lesson()->saveFile(path("recent.attnviz")), QString());
        QCOMPARE(recentLessons().value(0), QFileInfo(path("recent.attnviz")).absoluteFilePath());
        window->stepPanel()->setStep(0);

        auto* recent = window->menuBar()->findChild<QMenu*>(QStringLiteral("menuRecent"));
        QVERIFY(recent);
        emit recent->aboutToShow();
        QAction* entry = nullptr;
        for (QAction* action : recent->actions())
            if (action->text() == QStringLiteral("recent.attnviz"))
                entry = action;
        QVERIFY(entry);
        entry->trigger();
        QVERIFY(attnviz::test::waitUntilIdle(*window));
        QCOMPARE(window->stepPanel()->step(), attnviz::test::step("scores"));
    }

    void aWindowClosedTheUsualWayReopensWhereItWas()
    {
        LessonFile shown;
        {
            auto window = openWindow();
            QVERIFY(window);
            prepareModelLesson(*window);
            window->modelPanel()->setChoice({1, Block::MaskedSelf, -1});
            window->stepPanel()->setStep(attnviz::test::step("scaled"));
            shown = window->lesson()->current();
            QVERIFY(window->close());
        }
        auto window = openWindow();
        QVERIFY(window);
        QCOMPARE(window->lesson()->current(), shown);
        QCOMPARE(window->modelPanel()->choice().block, Block::MaskedSelf);
        QCOMPARE(window->stepPanel()->step(), attnviz::test::step("scaled"));
    }

    void aRelativeModelFolderIsReadBesideTheLesson()
    {
        QFile file(path("relative.attnviz"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"attnviz-lesson\", \"version\": 1, \"model\": {\"folder\": "
                   "\"models/mine\"}}");
        file.close();
        const LessonRead read = readLessonFile(path("relative.attnviz"));
        QVERIFY(read.lesson);
        QCOMPARE(QString::fromStdString(read.lesson->model.folder), path("models/mine"));
    }
};

QTEST_MAIN(LessonTest)
#include "lesson_test.moc"
