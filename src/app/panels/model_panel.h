#pragma once

#include "app/window/model_runner.h"
#include "lesson/model_walkthrough.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace Ui {
class ModelPanel;
}

namespace attnviz::app {

/// A block's name for people, in the interface's language ("masked self-attention"); the CLI and
/// the trace files use engine::blockName ("masked_self").
QString blockTitle(engine::Block block);

/// Chooses what the window shows: the random-weights playground, a bundled demo model or a model
/// folder; the text to run; and, for a model, the layer, the attention block and the decoding
/// step to walk through.
class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);
    ~ModelPanel() override;

    Ui::ModelPanel* ui() const { return m_ui.get(); }
    bool playground() const;
    lesson::ModelSource request() const;
    lesson::BlockChoice choice() const;

    /// Selects a source ("" = playground, a bundled name or a folder) and its text.
    void setRequest(const lesson::ModelSource& request);
    /// Shows a finished run (or its error) and refills the layer and block selectors.
    void showResult(const ModelResult& result);
    /// Selects what `shown` ran again, with its text, and shows it, without running anything:
    /// after a cancel or a folder that did not open, the panel names what the window still
    /// shows. An empty result selects the playground (which emits playgroundChosen).
    void restore(const ModelResult& shown);
    /// Removes an entry added for a folder or file; the playground, the demos and the "Open…"
    /// entries stay. False when there was no such entry.
    bool forgetSource(const QString& folder);
    /// One sentence in the problem line, kept until the user asks for another run (why a
    /// folder was not opened, why the saved model was replaced).
    void setNotice(const QString& notice);
    /// Selects a layer and block (the overview's clicks).
    void setChoice(const lesson::BlockChoice& choice);
    /// Leaves the overview (its button unchecked).
    void leaveOverview();
    /// The progress row while a model loads or runs: `total` 0 means "loading", with no count.
    void showProgress(int done, int total);
    void hideProgress();
    /// Switches a head of the model off or back on and asks for the run again.
    void setHeadSwitchedOff(const engine::Ablation::Head& head, bool off);
    void switchAllHeadsOn();
    /// Runs the Vision Transformer shown on this picture file; false (nothing asked) when the
    /// model shown reads text.
    bool setPicture(const QString& path);

signals:
    void playgroundChosen();
    void requestChanged(const attnviz::lesson::ModelSource& request);
    void choiceChanged(const attnviz::lesson::BlockChoice& choice);
    void overviewToggled(bool on);
    void cancelRequested();

private:
    /// The index of the source an entry of the list stands for: itself, or for "Open …" the
    /// folder or file the user picks (listed once); nothing when the dialog is cancelled.
    std::optional<int> chosenSource(int index);
    void sourceActivated(int index);
    void showSourceWidgets(const QString& folder);
    void emitRequest();
    void fillBlocks();
    /// Empties the layer, block and decoding-step selectors: there is no run to choose from.
    void clearRun();
    void showProblem(const QString& error);

    std::unique_ptr<Ui::ModelPanel> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
    bool m_filling = false;
    QString m_notice;
    QString m_shownSource; ///< the source list's data of what is shown; empty: the playground
    QString m_error; ///< the problem line's sentence from the last result
    engine::Ablation m_ablation; ///< of the source chosen; a new source starts with every head on
};

} // namespace attnviz::app
