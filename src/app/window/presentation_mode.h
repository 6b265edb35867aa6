#pragma once

#include <QObject>

#include <vector>

class QAction;
class QMainWindow;
class QShortcut;
class QWidget;

namespace attnviz::app {

class StepPanel;

/// Presentation mode (F5, View ▸ Presentation): readable from the back of a classroom. Every
/// font of the window grows (the step's title and formula more), the window fills the
/// projector's screen, the settings panel makes room for the heatmaps, and the keyboard alone
/// walks the lesson: digits choose a step, H one head after another, S the settings, Esc leaves.
/// Leaving restores the window and the desktop's own font size.
class PresentationMode : public QObject {
    Q_OBJECT
public:
    /// `action` is the checkable menu item that turns the mode on and off; `settings` the panel
    /// it hides.
    PresentationMode(QMainWindow* window, QAction* action, QWidget* settings, StepPanel* steps);

    bool isOn() const;
    void setOn(bool on);

private:
    /// The mode's keys, enabled only in it.
    void addKeys();

    QMainWindow* m_window;
    QAction* m_action;
    QWidget* m_settings;
    StepPanel* m_steps;
    Qt::WindowStates m_stateBefore;
    std::vector<QShortcut*> m_keys;
};

} // namespace attnviz::app
