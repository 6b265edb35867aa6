#pragma once

#include "app/experiments/walkthrough_dialog.h"

#include <memory>

namespace Ui {
class RotaryDialog;
}

namespace attnviz::app {

/// Experiments ▸ Rotary positions: for the block shown, one query and one key of a head pair by
/// pair (RotaryPairsView, from lesson::rotaryPairs): each pair of features turned by position ×
/// frequency; beside it the angle of every pair at every position (lesson::rotaryAngles) and
/// the proof, with every position moved on by a number of the user's choosing, that the score
/// depends only on how far apart the two are. Non-modal; it follows the main window's
/// walkthrough while open.
class RotaryDialog : public WalkthroughDialog {
    Q_OBJECT
public:
    explicit RotaryDialog(QWidget* parent = nullptr);
    ~RotaryDialog() override;

    Ui::RotaryDialog& ui() { return *m_ui; }

private:
    void recompute() override;
    void redraw();

    std::unique_ptr<Ui::RotaryDialog> m_ui;
};

} // namespace attnviz::app
