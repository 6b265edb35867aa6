#include "app/model_runner.h"

#include "engine/input_error.h"
#include "io/builtin_models.h"
#include "io/model_loader.h"

#include <QtConcurrent/QtConcurrentRun>

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
    m_watcher.setFuture(QtConcurrent::run([request, loaded] {
        ModelResult result;
        result.request = request;
        try {
            result.model = loaded ? loaded : io::loadModel(io::resolveModelFolder(request.folder.toStdString()));
            const std::optional<std::string> target =
                request.target ? std::optional<std::string>(request.target->toStdString()) : std::nullopt;
            result.run = std::make_shared<const engine::ModelRun>(
                engine::runModelOnText(*result.model, request.text.toStdString(), target, request.generate));
        } catch (const io::ModelError& e) {
            result.error = QString::fromStdString(e.what());
        } catch (const engine::InputError& e) {
            result.error = QString::fromStdString(e.what());
        }
        return result;
    }));
}

} // namespace attnviz::app
