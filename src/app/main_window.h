#pragma once

#include "app/playground.h"

#include <QMainWindow>

#include <memory>

namespace Ui {
class MainWindow;
}

namespace attnviz::app {

class InputPanel;
class StepPanel;
class WalkthroughRunner;

/// Wires the input panel, the runner and the step panel together, and keeps the window's
/// geometry and last configuration in QSettings. Holds no logic of its own beyond that.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    InputPanel* inputPanel() const { return m_input; }
    StepPanel* stepPanel() const { return m_steps; }
    WalkthroughRunner* runner() const { return m_runner; }
    std::shared_ptr<const Walkthrough> walkthrough() const { return m_walkthrough; }

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void showWalkthrough(std::shared_ptr<const Walkthrough> walkthrough);
    void setPresentationMode(bool on);

    std::unique_ptr<Ui::MainWindow> m_ui;
    InputPanel* m_input;
    StepPanel* m_steps;
    WalkthroughRunner* m_runner;
    std::shared_ptr<const Walkthrough> m_walkthrough;
};

} // namespace attnviz::app
