#pragma once

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace attnviz::app {

/// What became of a job whose result comes back.
enum class JobFate {
    Current, ///< the newest request's result: show it
    Overtaken, ///< a newer request came while it ran; that one starts next
    Cancelled, ///< cancel() came while it ran: the user asked to stop
};

/// One job at a time off the GUI thread, where only the newest request matters: while a job
/// runs, a new request replaces any request still waiting behind it and tells the running job to
/// stop (its stop flag is set; jobs check it where they can). Dragging a slider or typing into
/// the text field thus never queues stale work, and a slow model run yields to the next one at
/// its next layer. The playground, the model runs and the head-importance measurement all run
/// through this.
///
/// `prepare` turns a request into its job on the GUI thread when the job starts (not when it is
/// requested), so it may read what the results delivered before have changed; `done` receives
/// every result not discarded on the GUI thread, with its fate; `idle` is called once no job is
/// left (after `done`), whether the last result was shown or discarded.
template <typename Request, typename Result> class NewestRequestWins {
public:
    using Job = std::function<Result(const std::atomic<bool>& stop)>;

    NewestRequestWins(std::function<Job(const Request&)> prepare,
                      std::function<void(Result, JobFate)> done, std::function<void()> idle)
        : m_prepare(std::move(prepare))
        , m_done(std::move(done))
        , m_idle(std::move(idle))
    {
        QObject::connect(&m_watcher, &QFutureWatcherBase::finished, &m_watcher,
                         [this] { finished(); });
    }
    ~NewestRequestWins()
    {
        cancel();
        m_watcher.waitForFinished();
    }
    NewestRequestWins(const NewestRequestWins&) = delete;
    NewestRequestWins& operator=(const NewestRequestWins&) = delete;

    void request(const Request& request)
    {
        // m_busy, not isRunning(): a job that has just finished still has its result to deliver,
        // and starting another beside it would drop that result unseen.
        if (m_busy) {
            m_pending = request;
            *m_stop = true;
        } else
            start(request);
    }
    /// Drops the waiting request and asks the running job to stop; its result still comes back,
    /// as Cancelled.
    void cancel()
    {
        m_pending.reset();
        if (m_stop)
            *m_stop = true;
    }
    /// As cancel(), but the running job's result is dropped unseen: what it would show has been
    /// replaced on screen already (settings refused since, another model chosen).
    void discard()
    {
        cancel();
        m_discarded = m_busy;
    }
    /// Until the newest result has been delivered.
    bool busy() const { return m_busy; }
    int jobsStarted() const { return m_started; }

private:
    void start(const Request& request)
    {
        ++m_started;
        m_busy = true;
        m_discarded = false;
        m_stop = std::make_shared<std::atomic<bool>>(false);
        m_watcher.setFuture(
            QtConcurrent::run([job = m_prepare(request), stop = m_stop] { return job(*stop); }));
    }
    void finished()
    {
        Result result = m_watcher.result();
        if (m_pending) {
            const Request next = *std::exchange(m_pending, std::nullopt);
            m_done(std::move(result), JobFate::Overtaken);
            start(next);
            return;
        }
        m_busy = false;
        if (!std::exchange(m_discarded, false))
            m_done(std::move(result), *m_stop ? JobFate::Cancelled : JobFate::Current);
        if (!m_busy) // `done` may have asked for more
            m_idle();
    }

    std::function<Job(const Request&)> m_prepare;
    std::function<void(Result, JobFate)> m_done;
    std::function<void()> m_idle;
    QFutureWatcher<Result> m_watcher;
    std::optional<Request> m_pending;
    std::shared_ptr<std::atomic<bool>> m_stop;
    int m_started = 0;
    bool m_busy = false;
    bool m_discarded = false;
};

} // namespace attnviz::app
