#pragma once

#include "app/window/newest_request_wins.h"
#include "lesson/playground.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>

namespace attnviz::app {

/// Computes playground walkthroughs off the GUI thread, the newest settings winning. Settings
/// with problems are refused before any computation starts; results arrive as immutable
/// walkthroughs, failures as one sentence.
class WalkthroughRunner : public QObject {
    Q_OBJECT
public:
    explicit WalkthroughRunner(QObject* parent = nullptr);

    void request(const lesson::PlaygroundSettings& settings);
    /// The user's memory limit (Preferences), for computations started from now on.
    void setMemoryLimit(std::optional<std::uint64_t> bytes) { m_memoryLimit = bytes; }
    /// Until the newest result has been delivered (the future finishing on its thread is not
    /// enough: its `computed` signal is still queued then).
    bool busy() const { return m_work.busy(); }
    int computationsStarted() const { return m_work.jobsStarted(); }

signals:
    /// Nothing runs, and the newest result has been delivered (or dropped as stale).
    void idle();
    void computed(std::shared_ptr<const attnviz::lesson::Walkthrough> walkthrough);
    void rejected(const std::vector<attnviz::lesson::SettingsProblem>& problems);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const lesson::Walkthrough> walkthrough;
        QString error;
    };
    std::optional<std::uint64_t> m_memoryLimit;
    NewestRequestWins<lesson::PlaygroundSettings, Outcome> m_work;
};

} // namespace attnviz::app
