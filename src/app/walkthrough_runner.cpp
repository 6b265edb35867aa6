#include "app/walkthrough_runner.h"

#include <QtConcurrent/QtConcurrentRun>

namespace attnviz::app {

WalkthroughRunner::WalkthroughRunner(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
        if (m_pending) {
            // A newer request arrived meanwhile: this result is already stale.
            const PlaygroundSettings next = *m_pending;
            m_pending.reset();
            start(next);
            return;
        }
        emit computed(m_watcher.result());
    });
}

WalkthroughRunner::~WalkthroughRunner()
{
    m_watcher.waitForFinished();
}

void WalkthroughRunner::request(const PlaygroundSettings& settings)
{
    const std::vector<SettingsProblem> problems = checkSettings(settings);
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

void WalkthroughRunner::start(const PlaygroundSettings& settings)
{
    ++m_started;
    m_watcher.setFuture(QtConcurrent::run([settings] { return computeWalkthrough(settings); }));
}

} // namespace attnviz::app
