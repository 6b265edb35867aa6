// The session object and the newest-request-wins worker under it, without a window: what is
// shown changes only through the session, "idle" is one signal, and stale work never reaches
// the screen.
#include "app/window/newest_request_wins.h"
#include "app/window/session.h"
#include "io/safetensors.h"
#include "window_test_support.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

using attnviz::app::JobFate;
using attnviz::app::NewestRequestWins;
using attnviz::app::Session;
namespace lesson = attnviz::lesson;

namespace {

/// Jobs that wait at a gate until the test opens it, and record what they saw.
struct GatedJobs {
    std::atomic<bool> open{false};
    std::atomic<int> sawStop{0};
    std::vector<std::pair<int, JobFate>> done;
    int idle = 0;

    NewestRequestWins<int, int> worker{
        [this](const int& request) {
            return [this, request](const std::atomic<bool>& stop) {
                while (!open)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                if (stop)
                    ++sawStop;
                return request;
            };
        },
        [this](int result, JobFate fate) { done.emplace_back(result, fate); }, [this] { ++idle; }};

    bool waitIdle()
    {
        return QTest::qWaitFor([this] { return !worker.busy(); }, 60000);
    }
};

lesson::PlaygroundSettings refusedSettings()
{
    lesson::PlaygroundSettings s;
    s.heads = 3; // does not divide the model width of 16
    return s;
}

} // namespace

class SessionTest : public QObject {
    Q_OBJECT

private slots:
    void aRequestWhileOneRunsReplacesTheWaitingOneAndStopsTheRunningOne()
    {
        GatedJobs jobs;
        jobs.worker.request(1);
        jobs.worker.request(2); // waits
        jobs.worker.request(3); // replaces 2, which never starts
        QVERIFY(jobs.worker.busy());
        jobs.open = true;
        QVERIFY(jobs.waitIdle());
        QCOMPARE(jobs.worker.jobsStarted(), 2);
        QCOMPARE(
            jobs.done,
            (std::vector<std::pair<int, JobFate>>{{1, JobFate::Overtaken}, {3, JobFate::Current}}));
        QCOMPARE(jobs.sawStop.load(), 1); // job 1 was told it is stale; job 3 was not
        QCOMPARE(jobs.idle, 1);
    }

    void aCancelledJobComesBackAsCancelledAndADiscardedOneNotAtAll()
    {
        GatedJobs cancelled;
        cancelled.worker.request(1);
        cancelled.worker.request(2);
        cancelled.worker.cancel(); // drops 2 and stops 1
        cancelled.open = true;
        QVERIFY(cancelled.waitIdle());
        QCOMPARE(cancelled.done, (std::vector<std::pair<int, JobFate>>{{1, JobFate::Cancelled}}));
        QCOMPARE(cancelled.idle, 1);

        GatedJobs discarded;
        discarded.worker.request(1);
        discarded.worker.discard();
        discarded.open = true;
        QVERIFY(discarded.waitIdle());
        QVERIFY(discarded.done.empty());
        QCOMPARE(discarded.idle, 1); // idle is said even when nothing is shown
        // After a discard, the next request is shown as usual.
        discarded.worker.request(4);
        QVERIFY(discarded.waitIdle());
        QCOMPARE(discarded.done, (std::vector<std::pair<int, JobFate>>{{4, JobFate::Current}}));
    }

    void thePlaygroundIsShownOrRefusedAndIdleIsOneSignal()
    {
        Session session;
        QSignalSpy changed(&session, &Session::walkthroughChanged);
        QSignalSpy shown(&session, &Session::shownChanged);
        QSignalSpy idle(&session, &Session::becameIdle);
        session.showPlayground({});
        QVERIFY(!session.idle());
        QVERIFY(idle.wait(attnviz::test::kPatienceMs));
        QVERIFY(session.idle());
        QVERIFY(session.walkthrough());
        QVERIFY(session.playground());
        QVERIFY(!session.run());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(shown.count(), 1);

        QSignalSpy rejected(&session, &Session::playgroundRejected);
        session.showPlayground(refusedSettings());
        QCOMPARE(rejected.count(), 1);
        // Nothing of the settings that worked stays beside settings that cannot be computed.
        QVERIFY(!session.walkthrough());
        QCOMPARE(changed.count(), 2);
        QVERIFY(!changed.last().at(1).toString().isEmpty());
    }

    void aPlaygroundComputationRefusedMeanwhileIsNeverShown()
    {
        Session session;
        QSignalSpy changed(&session, &Session::walkthroughChanged);
        QSignalSpy idle(&session, &Session::becameIdle);
        lesson::PlaygroundSettings slow;
        std::string words;
        for (int i = 0; i < 200; ++i)
            words += "w" + std::to_string(i % 37) + " ";
        slow.querySentences = {words};
        session.showPlayground(slow);
        session.showPlayground(refusedSettings());
        // The refusal is on screen at once; the computation still running ends unseen.
        QCOMPARE(changed.count(), 1);
        QVERIFY(QTest::qWaitFor([&] { return session.idle(); }, attnviz::test::kPatienceMs));
        QCOMPARE(changed.count(), 1);
        QVERIFY(!session.walkthrough());
        QVERIFY(idle.count() >= 1);
    }

    // The playground is held to the memory setting as models are, and a new limit recomputes
    // what is shown.
    void thePlaygroundIsHeldToTheMemoryLimit()
    {
        Session session;
        QSignalSpy changed(&session, &Session::walkthroughChanged);
        QSignalSpy status(&session, &Session::status);
        lesson::PlaygroundSettings wide;
        wide.modelWidth = 256;
        wide.heads = 16;
        wide.queryKeySize = wide.valueSize = 256; // 8 MiB of weights
        session.setMemoryLimit(std::uint64_t{4} << 20);
        session.showPlayground(wide);
        QVERIFY(QTest::qWaitFor([&] { return session.idle(); }, attnviz::test::kPatienceMs));
        QVERIFY(!session.walkthrough());
        QVERIFY(!changed.isEmpty());
        const QString why = changed.last().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("needs about")) &&
                     why.contains(QStringLiteral("allows 4.0 MiB")),
                 qPrintable(why));

        session.setMemoryLimit(std::nullopt);
        QVERIFY(QTest::qWaitFor([&] { return session.walkthrough() != nullptr; },
                                attnviz::test::kPatienceMs));
    }

    // A model whose Q and K columns are finite but huge: its scores overflow, and the app says
    // where in one sentence instead of drawing NaN weights as magenta rows summing to 0.000.
    void aRunThatOverflowsIsRefusedWithTheLayerAndStep()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string folder = dir.filePath(QStringLiteral("gpt2")).toStdString();
        std::filesystem::copy(ATTNVIZ_TEST_DATA_DIR "/hf/gpt2", folder);
        const std::string weights = folder + "/model.safetensors";
        {
            const attnviz::io::SafetensorsFile file = attnviz::io::SafetensorsFile::read(weights);
            attnviz::io::SafetensorsWriter out =
                attnviz::io::SafetensorsWriter::toFile(weights + ".new");
            for (const attnviz::io::TensorEntry& t : file.tensors()) {
                std::string bytes(t.bytes.begin(), t.bytes.end());
                if (t.name == "transformer.h.1.attn.c_attn.weight") {
                    auto* values = reinterpret_cast<float*>(bytes.data());
                    const std::int64_t columns = t.shape[1];
                    for (std::int64_t r = 0; r < t.shape[0]; ++r)
                        for (std::int64_t c = 0; c < 2 * columns / 3; ++c)
                            values[r * columns + c] *= 3e19f;
                }
                out.addRaw(t.name, t.dtype, t.shape, bytes);
            }
            out.finish();
        }
        std::filesystem::rename(weights + ".new", weights);

        Session session;
        QSignalSpy changed(&session, &Session::walkthroughChanged);
        session.showModel({.folder = folder, .text = "Hello world, hello again"});
        QVERIFY(QTest::qWaitFor([&] { return session.idle() && !changed.isEmpty(); },
                                attnviz::test::kPatienceMs));
        QVERIFY(!session.run());
        const QString why = changed.last().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("Decoder layer 1, masked_self block: the scores step "
                                             "overflowed 32-bit floats")),
                 qPrintable(why));
    }

    void aModelsBlockIsShownOnlyWhenTheRunHasIt()
    {
        Session session;
        QSignalSpy results(&session, &Session::modelShown);
        session.showModel({.folder = "reverse", .text = "attention"});
        QVERIFY(QTest::qWaitFor([&] { return results.count() == 1; }, attnviz::test::kPatienceMs));
        QVERIFY(session.run());
        QVERIFY(!session.walkthrough()); // the panel chooses the block
        session.chooseBlock({7, attnviz::engine::Block::Cross, -1});
        QVERIFY(!session.walkthrough());
        QSignalSpy changed(&session, &Session::walkthroughChanged);
        session.chooseBlock({0, attnviz::engine::Block::Cross, -1});
        QCOMPARE(changed.count(), 1);
        QVERIFY(std::holds_alternative<lesson::ModelBlockSource>(session.walkthrough()->source));
        session.chooseBlock({0, attnviz::engine::Block::Cross, -1}); // already shown
        QCOMPARE(changed.count(), 1);

        // Back to the playground: the model's run no longer belongs to what is shown.
        session.showPlayground({});
        QVERIFY(!session.run());
        QVERIFY(session.modelResult().request.playground());
    }

    void aFolderThatIsNoModelIsNamedEscapedOnOneLine()
    {
        Session session;
        QSignalSpy kept(&session, &Session::modelKept);
        QSignalSpy unopened(&session, &Session::sourceUnopened);
        // A right-to-left override would show the rest of the sentence backwards; an ESC and a
        // line break would break it.
        const QString name = QStringLiteral("no\u202Emodel\x1b\nhere");
        session.showModel(
            {.folder = (QDir::tempPath() + QLatin1Char('/') + name).toStdString(), .text = "abc"});
        QVERIFY(QTest::qWaitFor([&] { return kept.count() == 1; }, attnviz::test::kPatienceMs));
        QCOMPARE(unopened.count(), 1);
        const QString notice = kept.takeFirst().at(1).toString();
        QVERIFY2(notice.contains(QStringLiteral("was not opened")), qPrintable(notice));
        for (const QChar c : {QChar(0x202E), QChar(0x1b), QChar('\n')})
            QVERIFY2(!notice.contains(c), qPrintable(notice));
        QVERIFY2(notice.contains(QStringLiteral("model")), qPrintable(notice));
    }

    void aLessonsViewWaitsForItsOwnRun()
    {
        Session session;
        lesson::LessonFile saved;
        saved.model = {.folder = "reverse", .text = "attention"};
        saved.choice = {0, attnviz::engine::Block::MaskedSelf, -1};
        saved.step = "softmax";
        session.awaitView(saved);
        QSignalSpy ready(&session, &Session::viewReady);
        QSignalSpy results(&session, &Session::modelShown);
        // Another text's run (one asked for before the lesson opened) is not the lesson's.
        session.showModel({.folder = "reverse", .text = "tension"});
        QVERIFY(QTest::qWaitFor([&] { return results.count() == 1; }, attnviz::test::kPatienceMs));
        QCOMPARE(ready.count(), 0);
        QVERIFY(session.pendingView());
        session.showModel(saved.model);
        QVERIFY(QTest::qWaitFor([&] { return ready.count() == 1; }, attnviz::test::kPatienceMs));
        const auto view = ready.takeFirst().at(0).value<lesson::LessonFile>();
        QCOMPARE(view.step, std::string("softmax"));
        QCOMPARE(view.choice.block, attnviz::engine::Block::MaskedSelf);
        QVERIFY(!session.pendingView());
    }
};

QTEST_MAIN(SessionTest)
#include "session_test.moc"
