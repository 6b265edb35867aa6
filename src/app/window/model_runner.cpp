#include "app/window/model_runner.h"

#include "app/window/job_failure.h"

#include "io/builtin_models.h"
#include "lesson/imported_run.h"

#include <QFileInfo>

namespace attnviz::app {
namespace {

// Thrown from the progress callback to unwind a run the user stopped.
struct Cancelled { };

} // namespace

ModelRunner::ModelRunner(QObject* parent)
    : QObject(parent)
    , m_work([this](const lesson::ModelSource& r) { return prepare(r); },
             [this](ModelResult result, JobFate fate) { done(std::move(result), fate); },
             [this] { emit idle(); })
{
}

ModelRunner::~ModelRunner() = default;

void ModelRunner::request(const lesson::ModelSource& request)
{
    m_work.request(request);
}

void ModelRunner::cancel()
{
    m_work.cancel();
}

void ModelRunner::done(ModelResult result, JobFate fate)
{
    if (result.model) {
        m_loadedFolder = result.request.folder;
        m_loaded = result.model;
    }
    if (fate == JobFate::Overtaken) {
        if (!result.model && !result.error.isEmpty())
            emit overtakenUnopened(QString::fromStdString(result.request.folder));
        return;
    }
    if (fate == JobFate::Cancelled && !result.cancelled) {
        // Cancelled after the worker's last check (a text the model cannot read fails before
        // the first layer): the user asked to stop, so nothing of it is shown. The error is
        // kept: a folder that did not load is still known not to load.
        result.run.reset();
        result.cancelled = true;
    }
    emit finished(result);
}

ModelRunner::Job ModelRunner::prepare(const lesson::ModelSource& request)
{
    auto loaded = request.folder == m_loadedFolder ? m_loaded : nullptr;
    return [this, request, loaded, limit = m_memoryLimit](const std::atomic<bool>& stop) {
        // Progress crosses to the GUI thread as queued calls; Qt drops them if the runner is
        // gone.
        const auto report = [this, &stop](int done, int total) {
            if (stop)
                throw Cancelled();
            QMetaObject::invokeMethod(
                this, [this, done, total] { emit progress(done, total); }, Qt::QueuedConnection);
        };
        ModelResult result;
        result.request = request;
        try {
            if (QFileInfo(QString::fromStdString(request.folder)).isFile()) {
                // Attention weights computed elsewhere: nothing to load or run.
                result.run = lesson::openImportedRun(request.folder, limit);
                result.model = result.run->model;
                return result;
            }
            result.model = loaded ? loaded
                                  : std::make_shared<const io::LoadedModel>(lesson::openModel(
                                        io::resolveModelFolder(request.folder), limit));
            report(0, result.model->model->config().layerCount());
            lesson::RunRequest run;
            run.text = request.text;
            run.target = request.target;
            run.generate = request.generate;
            run.image = request.image;
            run.maxMemory = limit;
            run.ablation = request.ablation;
            run.compareWithIntact = true;
            result.run = std::make_shared<const lesson::ModelRun>(
                lesson::runModelOnText(result.model, run, std::nullopt, report));
        } catch (const Cancelled&) {
            result.run.reset();
            result.cancelled = true;
        } catch (...) {
            result.error = jobFailure(
                std::current_exception(),
                ModelRunner::tr("There was not enough memory to run this model on this text."));
        }
        return result;
    };
}

} // namespace attnviz::app
