#pragma once

#include "app/model_runner.h"
#include "lesson/model_walkthrough.h"

#include <QWidget>

#include <memory>

namespace Ui {
class ModelPanel;
}

namespace attnviz::app {

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
    ModelRequest request() const;
    lesson::BlockChoice choice() const;

    /// Selects a source ("" = playground, a bundled name or a folder) and its text.
    void setRequest(const ModelRequest& request);
    /// Shows a finished run (or its error) and refills the layer and block selectors.
    void showResult(const ModelResult& result);
    /// Selects a layer and block (the overview's clicks).
    void setChoice(const lesson::BlockChoice& choice);
    /// Leaves the overview (its button unchecked).
    void leaveOverview();
    /// The progress row while a model loads or runs: `total` 0 means "loading", with no count.
    void showProgress(int done, int total);
    void hideProgress();

signals:
    void playgroundChosen();
    void requestChanged(const attnviz::app::ModelRequest& request);
    void choiceChanged(const attnviz::lesson::BlockChoice& choice);
    void overviewToggled(bool on);
    void cancelRequested();

private:
    void sourceActivated(int index);
    void emitRequest();
    void fillBlocks();

    std::unique_ptr<Ui::ModelPanel> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
    bool m_filling = false;
};

} // namespace attnviz::app
