#pragma once

#include "app/experiments/experiment_dialog.h"
#include "lesson/model_run.h"

#include <memory>

namespace Ui {
class WindowReachDialog;
}

namespace attnviz::app {

/// Experiments ▸ Sliding window reach: how far back one token can hear, layer by layer
/// (lesson::windowReach), for the model shown when it has sliding windows (Mistral's on every
/// layer; Qwen2's and the bundled modern's on some, between full ones), else for a stack of
/// layers and a window of the user's choosing.
class WindowReachDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit WindowReachDialog(QWidget* parent = nullptr);
    ~WindowReachDialog() override;

    Ui::WindowReachDialog& ui() { return *m_ui; }
    /// Whether the map is the model's (rather than a stack of the user's).
    bool showsModel() const;

private:
    /// The run shown; none in the playground. A model without a window leaves the stack to the
    /// user.
    void follow(const Session& session) override;

    void redraw();

    std::unique_ptr<Ui::WindowReachDialog> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
};

} // namespace attnviz::app
