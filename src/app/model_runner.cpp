#include "app/model_runner.h"

#include "io/builtin_models.h"

#include <QtConcurrent/QtConcurrentRun>

#include <new>

namespace attnviz::app {

ModelRunner::ModelRunner(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
        const ModelResult result = m_watcher.result();
        if (result.model) {
            m_loadedFolder = result.request.folder;
            m_loaded = result.model;
        }
        if (m_pending) {
            const ModelRequest next = *m_pending;
            m_pending.reset();
            start(next);
            return;
        }
        m_busy = false;
        emit finished(result);
    });
}

ModelRunner::~ModelRunner()
{
    m_watcher.waitForFinished();
}

void ModelRunner::request(const ModelRequest& request)
{
    if (m_watcher.isRunning())
        m_pending = request;
    else
        start(request);
}

void ModelRunner::start(const ModelRequest& request)
{
    auto loaded = request.folder == m_loadedFolder ? m_loaded : nullptr;
    m_busy = true;
    m_watcher.setFuture(QtConcurrent::run([request, loaded] {
        ModelResult result;
        result.request = request;
        // The worker's exception boundary: nothing escapes into Qt's thread pool.
        try {
            result.model = loaded ? loaded
                                  : std::make_shared<const io::LoadedModel>(io::loadModel(
                                        io::resolveModelFolder(request.folder.toStdString())));
            lesson::RunRequest run;
            run.text = request.text.toStdString();
            if (request.target)
                run.target = request.target->toStdString();
            run.generate = request.generate;
            result.run =
                std::make_shared<const lesson::ModelRun>(lesson::runModelOnText(result.model, run));
        } catch (const std::bad_alloc&) {
            result.error =
                QObject::tr("There was not enough memory to run this model on this text.");
        } catch (const std::exception& e) {
            result.error = QString::fromStdString(e.what());
        } catch (...) {
            result.error = QObject::tr("Running the model failed for an unknown reason.");
        }
        return result;
    }));
}

} // namespace attnviz::app
