#pragma once

#include "app/experiments/experiment_dialog.h"
#include "app/window/newest_request_wins.h"
#include "lesson/head_types.h"
#include "lesson/model_run.h"

#include <memory>
#include <vector>

namespace Ui {
class HeadTypesDialog;
}

namespace attnviz::app {

class HeatmapView;

/// Experiments ▸ Head types: every head of the model shown scored for what heads are found to
/// do (lesson::headTypes: previous-token, duplicate-token and induction as TransformerLens scores
/// them, the share on the first token, the mean distance, the row entropy), as a layers × heads
/// map per kind of self-attention block and a ranking. The induction score needs a second run on
/// a repeated random prompt, made off the GUI thread. Choosing a head opens it in the window.
class HeadTypesDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit HeadTypesDialog(QWidget* parent = nullptr);
    ~HeadTypesDialog() override;

    bool busy() const override { return m_work.busy(); }
    const std::vector<lesson::HeadTypeMap>& maps() const { return m_maps; }
    const std::vector<HeatmapView*>& views() const { return m_views; }
    Ui::HeadTypesDialog& ui() { return *m_ui; }

signals:
    /// The scores of a new run are shown (or why not).
    void scored();

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The run shown; none in the playground (one module, no layers to compare).
    void follow(const Session& session) override;

    struct Outcome {
        std::vector<lesson::HeadTypeMap> maps;
        QString error;
    };
    using Request = std::shared_ptr<const lesson::ModelRun>;
    void score();
    void finish(Outcome outcome, JobFate fate);
    void redraw();
    void clear(const QString& message);

    std::unique_ptr<Ui::HeadTypesDialog> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
    bool m_stale = false;
    std::vector<lesson::HeadTypeMap> m_maps;
    std::vector<HeatmapView*> m_views;
    NewestRequestWins<Request, Outcome> m_work;
};

} // namespace attnviz::app
