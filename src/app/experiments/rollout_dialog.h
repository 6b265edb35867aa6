#pragma once

#include "app/experiments/experiment_dialog.h"
#include "lesson/attention_rollout.h"
#include "lesson/model_run.h"

#include <memory>
#include <optional>

namespace Ui {
class RolloutDialog;
}

namespace attnviz::app {

/// Experiments ▸ Attention rollout: the rollout (lesson::attentionRollout) of the first
/// attention stack of the run shown, read from its kept weights, with the head fusion and
/// discard ratio of the user's choosing; Export writes it as the Export menu writes a map.
class RolloutDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit RolloutDialog(QWidget* parent = nullptr);
    ~RolloutDialog() override;

    /// The map shown (none without a run).
    const std::optional<lesson::Heatmap>& map() const { return m_map; }
    Ui::RolloutDialog& ui() { return *m_ui; }

private:
    /// The run shown; none in the playground.
    void follow(const Session& session) override;

    void redraw();

    std::unique_ptr<Ui::RolloutDialog> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
    std::optional<lesson::Heatmap> m_map;
};

} // namespace attnviz::app
