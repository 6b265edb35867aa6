#include "app/walkthrough_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include <new>

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
        emit rejected(problems);
        return;
    }
    if (m_watcher.isRunning())
        m_pending = settings;
    else
        start(settings);
}

void WalkthroughRunner::start(const lesson::PlaygroundSettings& settings)
{
    ++m_started;
    m_busy = true;
    m_watcher.setFuture(QtConcurrent::run([settings] {
        // The worker's exception boundary: nothing escapes into Qt's thread pool.
        try {
            return Outcome{lesson::computePlayground(settings), {}};
        } catch (const std::bad_alloc&) {
            return Outcome{nullptr, QObject::tr("There was not enough memory for these settings.")};
        } catch (const std::exception& e) {
            return Outcome{nullptr, QString::fromStdString(e.what())};
        }
    }));
}

} // namespace attnviz::app
