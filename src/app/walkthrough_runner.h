#pragma once

#include "app/playground.h"

#include <QFutureWatcher>
#include <QObject>

#include <memory>
#include <optional>

namespace attnviz::app {

/// Computes walkthroughs off the GUI thread. Settings with problems are refused before any
/// computation starts. While one computation runs, only the newest request waits behind it, so
/// dragging a slider never queues stale work; results arrive as immutable walkthroughs.
class WalkthroughRunner : public QObject {
    Q_OBJECT
public:
    explicit WalkthroughRunner(QObject* parent = nullptr);
    ~WalkthroughRunner() override;

    void request(const PlaygroundSettings& settings);
    bool busy() const { return m_watcher.isRunning(); }
    int computationsStarted() const { return m_started; }

signals:
    void computed(std::shared_ptr<const Walkthrough> walkthrough);
    void rejected(const std::vector<SettingsProblem>& problems);

private:
    void start(const PlaygroundSettings& settings);

    QFutureWatcher<std::shared_ptr<const Walkthrough>> m_watcher;
    std::optional<PlaygroundSettings> m_pending;
    int m_started = 0;
};

} // namespace attnviz::app
