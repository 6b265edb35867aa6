#pragma once

#include "app/window/newest_request_wins.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/lesson_file.h"
#include "lesson/model_run.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace attnviz::app {

/// What a request produced: the model and its run, or one sentence saying why not.
struct ModelResult {
    lesson::ModelSource request;
    std::shared_ptr<const io::LoadedModel> model;
    std::shared_ptr<const lesson::ModelRun> run;
    QString error;
    bool cancelled = false; ///< the user stopped it: nothing new to show
};

/// Loads models and runs them off the GUI thread, the newest request winning (a running one stops
/// at its next layer). The last loaded model is kept, so changing the text does not read the
/// folder again. Whatever goes wrong in the worker — a damaged folder, a text the
/// model cannot read, an unexpected exception, running out of memory — arrives as `error`.
class ModelRunner : public QObject {
    Q_OBJECT
public:
    explicit ModelRunner(QObject* parent = nullptr);
    ~ModelRunner() override;

    void request(const lesson::ModelSource& request);
    /// Stops the running request at its next layer (loading a folder finishes first) and drops
    /// the pending one; `finished` then reports `cancelled`, however far the run got.
    void cancel();
    /// The most memory a run may take (the Preferences' limit); none: the machine's available
    /// memory. Applies from the next request on.
    void setMemoryLimit(std::optional<std::uint64_t> bytes) { m_memoryLimit = bytes; }
    std::optional<std::uint64_t> memoryLimit() const { return m_memoryLimit; }
    /// Until the newest result has been delivered.
    bool busy() const { return m_work.busy(); }

signals:
    /// Nothing runs, and the newest result has been delivered (or dropped as stale).
    void idle();
    void finished(const attnviz::app::ModelResult& result);
    /// Layers computed so far of the pass running now (queued from the worker thread).
    void progress(int done, int total);
    /// A request a newer one overtook did not open its folder or file: its result is not
    /// delivered, but the folder is known not to be a model.
    void overtakenUnopened(const QString& folder);

private:
    using Job = NewestRequestWins<lesson::ModelSource, ModelResult>::Job;
    Job prepare(const lesson::ModelSource& request);
    void done(ModelResult result, JobFate fate);

    std::string m_loadedFolder;
    std::shared_ptr<const io::LoadedModel> m_loaded;
    std::optional<std::uint64_t> m_memoryLimit;
    NewestRequestWins<lesson::ModelSource, ModelResult> m_work;
};

} // namespace attnviz::app
