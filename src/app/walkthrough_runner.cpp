#include "app/walkthrough_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include <new>
#include <utility>

namespace attnviz::app {

WalkthroughRunner::WalkthroughRunner(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
        if (m_pending) {
            // A newer request arrived meanwhile: this result is already stale.
            const lesson::PlaygroundSettings next = *m_pending;
            m_pending.reset();
            start(next);
            return;
        }
        const Outcome outcome = m_watcher.result();
        m_busy = false;
        if (std::exchange(m_stale, false))
            return; // the settings were refused since: their problems are on screen, not this
        if (outcome.walkthrough)
            emit computed(outcome.walkthrough);
        else
            emit failed(outcome.error);
    });
}

WalkthroughRunner::~WalkthroughRunner()
{
    m_watcher.waitForFinished();
}

void WalkthroughRunner::request(const lesson::PlaygroundSettings& settings)
{
    const std::vector<lesson::SettingsProblem> problems = lesson::checkSettings(settings);
    if (!problems.empty()) {
        m_pending.reset();
        m_stale = m_busy;
        emit rejected(problems);
        return;
    }
    // m_busy, not isRunning(): a computation that has just finished still has its result to
    // deliver, and starting another beside it would leave an older pending request to run
    // after the newest one.
    if (m_busy)
        m_pending = settings;
    else
        start(settings);
}

void WalkthroughRunner::start(const lesson::PlaygroundSettings& settings)
{
    ++m_started;
    m_busy = true;
    m_stale = false;
    m_watcher.setFuture(QtConcurrent::run([settings] {
        // The worker's exception boundary: nothing escapes into Qt's thread pool.
        try {
            return Outcome{lesson::computePlayground(settings), {}};
        } catch (const std::bad_alloc&) {
            return Outcome{
                nullptr, WalkthroughRunner::tr("There was not enough memory for these settings.")};
        } catch (const std::exception& e) {
            return Outcome{nullptr, QString::fromStdString(e.what())};
        }
    }));
}

} // namespace attnviz::app
