#pragma once

#include "lesson/playground.h"

#include <QWidget>

#include <memory>

namespace Ui {
class InputPanel;
}

namespace attnviz::app {

/// The left side of the window: sentences, module shape, mask and seed (ui/input_panel.ui).
/// Emits settingsChanged on every edit; problems are shown inline, next to their field.
class InputPanel : public QWidget {
    Q_OBJECT
public:
    explicit InputPanel(QWidget* parent = nullptr);
    ~InputPanel() override;

    lesson::PlaygroundSettings settings() const;
    void setSettings(const lesson::PlaygroundSettings& settings);
    /// Shows each problem under its field and hides the labels of fields without one.
    void showProblems(const std::vector<lesson::SettingsProblem>& problems);
    /// Blocks or unblocks one cell of the custom mask (the user clicked a score heatmap).
    void toggleBlockedCell(int query, int key);
    /// Switches a head of the playground's module off or back on; `switchAllHeadsOn` undoes all.
    void setHeadSwitchedOff(int head, bool off);
    void switchAllHeadsOn();

    Ui::InputPanel* ui() const { return m_ui.get(); }

signals:
    void settingsChanged();

private:
    /// The valid-lengths field and "Clear drawn mask" belong to one kind of mask each.
    void showMaskControls();
    /// The rotary base and the rotated size belong to rotary positions.
    void showPositionControls();
    /// The (1 + w) gain belongs to a q/k norm.
    void showQueryKeyNormControls();

    std::unique_ptr<Ui::InputPanel> m_ui;
    std::set<std::pair<int, int>> m_blockedCells;
    std::set<int> m_ablatedHeads;
    bool m_loading = false;
};

} // namespace attnviz::app
