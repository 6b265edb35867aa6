#pragma once

#include "lesson/playground.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace attnviz::app {

/// Computes playground walkthroughs off the GUI thread. Settings with problems are refused
/// before any computation starts. While one computation runs, only the newest request waits
/// behind it, so dragging a slider never queues stale work; results arrive as immutable
/// walkthroughs, failures as one sentence.
class WalkthroughRunner : public QObject {
    Q_OBJECT
public:
    explicit WalkthroughRunner(QObject* parent = nullptr);
    ~WalkthroughRunner() override;

    void request(const lesson::PlaygroundSettings& settings);
    /// Until the newest result has been delivered (the future finishing on its thread is not
    /// enough: its `computed` signal is still queued then).
    bool busy() const { return m_busy; }
    int computationsStarted() const { return m_started; }

signals:
    void computed(std::shared_ptr<const attnviz::lesson::Walkthrough> walkthrough);
    void rejected(const std::vector<attnviz::lesson::SettingsProblem>& problems);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const lesson::Walkthrough> walkthrough;
        QString error;
    };
    void start(const lesson::PlaygroundSettings& settings);

    QFutureWatcher<Outcome> m_watcher;
    std::optional<lesson::PlaygroundSettings> m_pending;
    int m_started = 0;
    bool m_busy = false;
    bool m_stale = false; ///< the newest request was refused: the running result is not shown
};

} // namespace attnviz::app
