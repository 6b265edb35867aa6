#pragma once

#include "app/experiments/walkthrough_dialog.h"
#include "lesson/scaling_experiment.h"

#include <memory>

namespace Ui {
class ScalingDialog;
}

namespace attnviz::app {

/// Experiments ▸ Scaling: the module shown in the main window, run again with its scores divided
/// by √d_k, by nothing, or by a free temperature (lesson::rescaledWalkthrough). Beside one head's
/// weights: the variance of its scores next to d_k, the rows' entropy and largest weight, a
/// histogram of the divided scores, and the variance of q · k for random vectors of growing d_k.
/// Non-modal; it follows the main window's walkthrough while open.
class ScalingDialog : public WalkthroughDialog {
    Q_OBJECT
public:
    explicit ScalingDialog(QWidget* parent = nullptr);
    ~ScalingDialog() override;

    /// The divisor chosen: √d_k, 1 or the temperature.
    double divisor() const;
    /// The computation shown (null when it cannot be made).
    std::shared_ptr<const lesson::Walkthrough> rescaled() const { return m_rescaled; }
    const lesson::SoftmaxStatistics& statistics() const { return m_statistics; }
    Ui::ScalingDialog& ui() { return *m_ui; }

private:
    void recompute() override;
    void redraw();
    void plotHistogram();
    void plotVariance();

    std::unique_ptr<Ui::ScalingDialog> m_ui;
    std::shared_ptr<const lesson::Walkthrough> m_rescaled;
    lesson::SoftmaxStatistics m_statistics;
};

} // namespace attnviz::app
