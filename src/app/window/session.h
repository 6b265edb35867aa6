#pragma once

#include "app/window/model_runner.h"
#include "app/window/walkthrough_runner.h"
#include "lesson/lesson_file.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnviz::app {

/// What the window shows, held in one place: the source (the playground's settings, or a model
/// and its text, heads switched off included), the model's run, the block of it on screen, the
/// walkthrough shown with its batch item, and a lesson's view still waiting for its run. The
/// panels ask it for changes; the step panel, every experiment window and the prediction prompt
/// follow its signals rather than each other. It owns both runners, so "idle" is one question
/// and one signal.
class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    /// The random-weights playground with these settings (computed, or refused with problems).
    void showPlayground(const lesson::PlaygroundSettings& settings);
    /// A model (or an attention import) run on its text.
    void showModel(const lesson::ModelSource& source);
    /// The block of the model's run to walk through.
    void chooseBlock(const lesson::BlockChoice& choice);
    /// Stops the model run under way; the window keeps what it shows.
    void cancelModel();
    /// The batch item the step panel shows.
    void setBatch(int batch);
    /// The block, step, view, batch item and head of `lesson`, applied (by viewReady) once the
    /// run of its source is on screen; the panels ask for the source itself.
    void awaitView(const lesson::LessonFile& lesson);
    /// The model reopened from the last session: until its first result, a failure to open it
    /// shows the bundled demo instead of an error.
    void setReopenedModel(const std::string& folder) { m_reopenedFolder = folder; }
    /// The Preferences' memory limit; the model shown runs again under a new one.
    void setMemoryLimit(std::optional<std::uint64_t> bytes);
    std::optional<std::uint64_t> memoryLimit() const { return m_models->memoryLimit(); }

    bool playground() const { return m_source.playground(); }
    /// The model asked for (no folder in the playground).
    const lesson::ModelSource& source() const { return m_source; }
    /// The model result shown (empty in the playground).
    const ModelResult& modelResult() const { return m_modelResult; }
    std::shared_ptr<const lesson::Walkthrough> walkthrough() const { return m_walkthrough; }
    /// The model's run the walkthrough belongs to: null in the playground.
    std::shared_ptr<const lesson::ModelRun> run() const;
    const lesson::BlockChoice& choice() const { return m_choice; }
    int batch() const { return m_batch; }
    const std::optional<lesson::LessonFile>& pendingView() const { return m_pendingView; }
    /// Nothing computing, and every result delivered.
    bool idle() const { return !m_playground->busy() && !m_models->busy(); }
    WalkthroughRunner* playgroundRunner() const { return m_playground; }
    ModelRunner* modelRunner() const { return m_models; }

signals:
    /// The walkthrough on screen changed; null: nothing is shown, and `reason` says why.
    void walkthroughChanged(std::shared_ptr<const attnviz::lesson::Walkthrough> walkthrough,
                            const QString& reason);
    /// The walkthrough on screen is replaced by one computed now, before control returns to the
    /// event loop: whoever holds it lets go of it (and of the heatmaps read from it) without
    /// showing anything else, so that its memory serves the next one. A real-size layer's is
    /// 0.6 GB, which the kernel would otherwise provide as fresh pages (seconds on a VM).
    void releasingWalkthrough();
    /// What the prediction prompt and the experiment windows of Following::Walkthrough follow:
    /// the walkthrough and the batch item shown.
    void shownChanged(std::shared_ptr<const attnviz::lesson::Walkthrough> walkthrough, int batch);
    /// A model's result is the window's now: its run (or the sentence why there is none).
    void modelShown(const attnviz::app::ModelResult& result);
    /// What the experiment windows of Following::Model follow: modelResult() and run() are
    /// another model's result (after modelShown), or empty since the window went back to the
    /// playground.
    void modelChanged();
    /// The model asked for is not shown (stopped, or it does not open): the window keeps showing
    /// `shown`, and `notice` (possibly empty) says why.
    void modelKept(const attnviz::app::ModelResult& shown, const QString& notice);
    /// The model reopened from the last session no longer opens: `demo` is asked for instead.
    void modelReplaced(const attnviz::lesson::ModelSource& demo, const QString& notice);
    /// A folder or file turned out not to be a model (not to keep in a list of sources).
    void sourceUnopened(const QString& folder);
    /// Layers computed so far of the model run under way; total 0: loading.
    void progress(int done, int total);
    void playgroundRejected(const std::vector<attnviz::lesson::SettingsProblem>& problems);
    /// A lesson's view to apply now that its run is on screen (its choice is one the run has).
    void viewReady(const attnviz::lesson::LessonFile& view);
    /// One line for the status bar.
    void status(const QString& message);
    /// Every computation asked for has been shown.
    void becameIdle();

private:
    void walkthroughComputed(std::shared_ptr<const lesson::Walkthrough> walkthrough);
    void modelFinished(const ModelResult& result);
    /// Nothing is shown, for `reason`.
    void showNothing(const QString& reason);
    void setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough);
    void applyPendingView();
    void reportIfIdle();

    WalkthroughRunner* m_playground;
    ModelRunner* m_models;
    lesson::ModelSource m_source;
    /// The playground's last settings, computed again when the memory limit changes.
    std::optional<lesson::PlaygroundSettings> m_playgroundSettings;
    ModelResult m_modelResult;
    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    /// The run and block m_walkthrough shows, when it is a model's block.
    std::shared_ptr<const lesson::ModelRun> m_blockRun;
    lesson::BlockChoice m_choice;
    int m_batch = 0;
    std::optional<lesson::LessonFile> m_pendingView;
    std::string m_reopenedFolder;
};

} // namespace attnviz::app
