#include "app/window/session.h"

#include "app/panels/model_panel.h"
#include "app/window/settings_store.h"
#include "app/window/shown_names.h"
#include "io/builtin_models.h"

#include <algorithm>
#include <utility>

namespace attnviz::app {
namespace {

bool builtIn(const std::string& folder)
{
    const std::vector<std::string> names = io::builtInModelNames();
    return std::find(names.begin(), names.end(), folder) != names.end();
}

/// A result's error as the middle of a sentence.
QString clause(QString error)
{
    if (error.endsWith(QLatin1Char('.')))
        error.chop(1);
    return error;
}

} // namespace

Session::Session(QObject* parent)
    : QObject(parent)
    , m_playground(new WalkthroughRunner(this))
    , m_models(new ModelRunner(this))
{
    connect(m_playground, &WalkthroughRunner::computed, this, &Session::walkthroughComputed);
    connect(m_playground, &WalkthroughRunner::rejected, this,
            [this](const std::vector<lesson::SettingsProblem>& problems) {
                emit playgroundRejected(problems);
                // The heatmaps of the last settings that worked must not stay beside settings
                // that cannot be computed.
                showNothing(tr("these settings cannot be computed; fix the fields marked in red."));
                emit status(tr("Not computed: fix the settings marked in red."));
                reportIfIdle();
            });
    connect(m_playground, &WalkthroughRunner::failed, this, [this](const QString& message) {
        if (playground()) {
            showNothing(message);
            emit status(tr("Not computed: %1").arg(message));
        }
    });
    connect(m_playground, &WalkthroughRunner::idle, this, &Session::reportIfIdle);
    connect(m_models, &ModelRunner::finished, this, &Session::modelFinished);
    connect(m_models, &ModelRunner::idle, this, &Session::reportIfIdle);
    connect(m_models, &ModelRunner::progress, this, [this](int done, int total) {
        // A run the user left for the playground is stopping: its last layers are not news.
        if (!playground())
            emit progress(done, total);
    });
    connect(m_models, &ModelRunner::overtakenUnopened, this, [this](const QString& folder) {
        // Not a model either, though the user moved on before it said so; unless it is chosen
        // again, when its own result will say why.
        if (folder.toStdString() != m_source.folder)
            emit sourceUnopened(folder);
    });
}

Session::~Session() = default;

std::shared_ptr<const lesson::ModelRun> Session::run() const
{
    return playground() ? nullptr : m_modelResult.run;
}

void Session::showPlayground(const lesson::PlaygroundSettings& settings)
{
    if (!playground()) {
        m_models->cancel();
        m_source = {};
        m_modelResult = {};
        emit modelChanged();
    }
    m_playgroundSettings = settings;
    m_playground->request(settings);
}

void Session::showModel(const lesson::ModelSource& source)
{
    if (source.playground())
        return;
    if (source.folder != m_reopenedFolder)
        m_reopenedFolder.clear(); // another model was chosen before the reopened one opened
    m_source = source;
    emit status(tr("Running %1…").arg(shownText(QString::fromStdString(source.folder))));
    emit progress(0, 0);
    m_models->request(source);
}

void Session::cancelModel()
{
    m_models->cancel();
}

void Session::setMemoryLimit(std::optional<std::uint64_t> bytes)
{
    m_models->setMemoryLimit(bytes);
    m_playground->setMemoryLimit(bytes);
    // What is shown was computed (or refused) under the old limit.
    if (!playground())
        showModel(m_source);
    else if (m_playgroundSettings)
        m_playground->request(*m_playgroundSettings);
}

void Session::setBatch(int batch)
{
    if (batch == m_batch)
        return;
    m_batch = batch;
    emit shownChanged(m_walkthrough, m_batch);
}

void Session::awaitView(const lesson::LessonFile& lesson)
{
    m_pendingView = lesson;
}

void Session::setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough)
{
    m_walkthrough = std::move(walkthrough);
    if (m_walkthrough)
        m_batch = std::clamp(m_batch, 0, std::max(0, m_walkthrough->batch() - 1));
    emit walkthroughChanged(m_walkthrough, {});
    emit shownChanged(m_walkthrough, m_batch);
}

void Session::showNothing(const QString& reason)
{
    m_walkthrough.reset();
    m_blockRun.reset();
    emit walkthroughChanged(nullptr, reason);
    emit shownChanged(nullptr, m_batch);
}

void Session::walkthroughComputed(std::shared_ptr<const lesson::Walkthrough> walkthrough)
{
    if (playground()) { // else computed for the playground, which the user left meanwhile
        m_blockRun.reset();
        setWalkthrough(std::move(walkthrough));
        applyPendingView();
        const auto& t = *m_walkthrough->trace;
        QString masked;
        if (!t.fullyMaskedRows.empty())
            masked = tr(" · %n query row(s) fully masked (zero weights)", nullptr,
                        static_cast<int>(t.fullyMaskedRows.size()));
        emit status(
            tr("computed in %1 ms · batch %2 · %3 heads · %4 queries × %5 keys · d_k %6, d_v "
               "%7%8")
                .arg(m_walkthrough->milliseconds, 0, 'f', 2)
                .arg(t.batchSize())
                .arg(t.numHeads())
                .arg(t.queryLength())
                .arg(t.keyLength())
                .arg(m_walkthrough->dk())
                .arg(m_walkthrough->dv())
                .arg(masked));
    }
}

void Session::modelFinished(const ModelResult& result)
{
    // A folder or file that does not open is not kept in the source list, whatever is shown.
    const bool unopened = !result.model && !result.error.isEmpty();
    const bool forgotten = unopened && !builtIn(result.request.folder);
    if (forgotten)
        emit sourceUnopened(QString::fromStdString(result.request.folder));
    const bool reopened = !m_reopenedFolder.empty() && result.request.folder == m_reopenedFolder;
    m_reopenedFolder.clear();
    if (playground()) {
        // The user went back to the playground while the model ran.
    } else if (result.cancelled) {
        emit modelKept(m_modelResult, {});
        emit status(tr("Cancelled: the window still shows the previous run."));
    } else if (const lesson::ModelSource demo = defaultModelRequest();
               unopened && reopened && result.request.folder != demo.folder) {
        // The model of the last session broke since (a file removed or replaced): start on the
        // demo a first start shows rather than on an error.
        const QString notice =
            tr("The model opened last time, “%1”, could not be opened again (%2), so the %3 demo "
               "is shown instead.")
                .arg(shownFileName(QString::fromStdString(result.request.folder)),
                     clause(result.error), QString::fromStdString(demo.folder));
        emit modelReplaced(demo, notice);
        emit status(notice);
    } else if (forgotten) {
        // The window keeps showing what it showed; the panel names it again and says why.
        const QString notice =
            tr("“%1” was not opened: %2.")
                .arg(shownFileName(QString::fromStdString(result.request.folder)),
                     clause(result.error));
        emit modelKept(m_modelResult, notice);
        emit status(notice);
    } else {
        m_modelResult = result;
        emit modelShown(result);
        emit modelChanged();
        if (result.run) {
            applyPendingView();
        } else {
            // Heatmaps of an earlier run would not belong to this model or text.
            showNothing(result.error.isEmpty() ? tr("the model has not run yet.") : result.error);
            emit status(result.error.isEmpty() ? tr("Loading…")
                                               : tr("Not computed: %1").arg(result.error));
        }
    }
}

void Session::chooseBlock(const lesson::BlockChoice& choice)
{
    const std::shared_ptr<const lesson::ModelRun>& run = m_modelResult.run;
    if (!run || !run->traceAt(choice.decodingStep).attentionBlock(choice.layer, choice.block))
        return;
    // Already on screen (the panel was restored after a cancel or a folder that did not open):
    // keep the walkthrough, with the step panel's focus and batch item.
    if (m_walkthrough && m_blockRun == run && m_choice == choice)
        return;
    // The shown layer is let go of before the next is computed: its memory serves the next.
    emit releasingWalkthrough();
    m_walkthrough.reset();
    std::shared_ptr<const lesson::Walkthrough> next;
    try {
        next = lesson::walkthroughForBlock(run, choice);
    } catch (const std::exception& e) {
        // What was shown is gone: say why nothing is.
        const QString why = dynamic_cast<const std::bad_alloc*>(&e)
            ? tr("there was not enough memory to compute layer %1.").arg(choice.layer)
            : QString::fromStdString(e.what());
        showNothing(why);
        emit status(tr("Not computed: %1").arg(why));
        return;
    }
    m_blockRun = run;
    m_choice = choice;
    setWalkthrough(std::move(next));
    emit status(tr("%1 · layer %2 · %3 · %4 heads · %5 queries × %6 keys · d_k %7")
                    .arg(QString::fromStdString(run->config.name))
                    .arg(choice.layer)
                    .arg(blockTitle(choice.block))
                    .arg(m_walkthrough->heads())
                    .arg(m_walkthrough->trace->queryLength())
                    .arg(m_walkthrough->trace->keyLength())
                    .arg(m_walkthrough->weightsOnly() ? tr("unknown")
                                                      : QString::number(m_walkthrough->dk())));
}

void Session::applyPendingView()
{
    if (!m_pendingView)
        return;
    // A result of what the window showed before the lesson (a run still under way when it was
    // opened) is not the lesson's: its view waits for the lesson's own result.
    const lesson::ModelSource& asked = m_pendingView->model;
    if (asked.playground() != playground())
        return;
    const lesson::ModelSource& ran = m_modelResult.request;
    if (!asked.playground() &&
        (ran.folder != asked.folder || ran.text != asked.text || ran.generate != asked.generate))
        return;
    lesson::LessonFile view = *std::exchange(m_pendingView, std::nullopt);
    if (const std::shared_ptr<const lesson::ModelRun> shown = run()) {
        const int steps = static_cast<int>(shown->decoding.size());
        if (view.choice.decodingStep >= steps)
            view.choice.decodingStep = -1;
        // A block the model lacks (a lesson edited by hand, a model replaced since) leaves the
        // block the run opened on.
        if (!shown->traceAt(view.choice.decodingStep)
                 .attentionBlock(view.choice.layer, view.choice.block))
            view.choice = m_choice;
    }
    emit viewReady(view);
}

void Session::reportIfIdle()
{
    if (idle())
        emit becameIdle();
}

} // namespace attnviz::app
