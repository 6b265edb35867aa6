#pragma once

#include "app/dialogs/preferences_dialog.h"
#include "app/window/session.h"
#include "app/window/view_state.h"

#include <QMainWindow>

#include <memory>

class QStackedWidget;

namespace Ui {
class MainWindow;
}

namespace attnviz::app {

class ExperimentsMenu;
class ExportMenu;
class GlossaryDialog;
class GuidedTour;
class InputPanel;
class ModelOverview;
class ModelPanel;
class PictureDrop;
class StepPanel;
class WindowLesson;

/// Builds the window and wires the panels, the views, the menus and the session (what is shown)
/// together. The step panel shows either the playground's walkthrough or one attention block of
/// a model run; what the window shows as a lesson, the Experiments menu's windows, the language
/// and dropped pictures each have their own class.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    InputPanel* inputPanel() const { return m_input; }
    ModelPanel* modelPanel() const { return m_model; }
    ModelOverview* overview() const { return m_overview; }
    Session* session() const { return m_session; }
    ExportMenu* exportMenu() const { return m_exports; }
    /// The Experiments menu's windows (kExperimentWindows).
    ExperimentsMenu* experiments() const { return m_experiments; }
    /// The lesson shown: File ▸ Open lesson, Save lesson as, the session kept at close.
    WindowLesson* lesson() const { return m_lesson; }
    /// Pictures dropped on the window.
    PictureDrop* pictureDrop() const { return m_pictures; }
    /// The last model result shown (empty in the playground).
    const ModelResult& modelResult() const { return m_session->modelResult(); }
    StepPanel* stepPanel() const { return m_steps; }
    std::shared_ptr<const lesson::Walkthrough> walkthrough() const
    {
        return m_session->walkthrough();
    }
    /// What is on screen, for the Export menu and saved lessons.
    ViewState viewState() const;

    /// Help ▸ Glossary, on the term with this key when one is given.
    GlossaryDialog* openGlossary(const QString& key);
    /// Help ▸ Guided tour (a first start offers it in the status bar).
    GuidedTour* startTour();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    /// Panels and views follow the session; the session follows the panels' requests.
    void wireSession();
    /// The step panel's requests of the model or playground: heads switched off, cells drawn.
    void wireStepPanel();
    void showWalkthrough(const std::shared_ptr<const lesson::Walkthrough>& walkthrough,
                         const QString& reason);
    void showModelResult(const ModelResult& result);
    void showPlayground();
    /// File ▸ Preferences: a new memory limit is saved and the model shown runs again under it.
    void openPreferences();
    /// Opens a head of the model shown: its layer and block, the weights, the head in focus.
    void openHead(int layer, engine::Block block, int head);
    /// A first start offers the guided tour without interrupting: one line, one button.
    void offerTour();

    std::unique_ptr<Ui::MainWindow> m_ui;
    InputPanel* m_input;
    ModelPanel* m_model;
    StepPanel* m_steps;
    ModelOverview* m_overview;
    QStackedWidget* m_views;
    Session* m_session;
    ExportMenu* m_exports = nullptr;
    ExperimentsMenu* m_experiments = nullptr;
    WindowLesson* m_lesson = nullptr;
    PictureDrop* m_pictures = nullptr;
    GlossaryDialog* m_glossary = nullptr;
    Preferences m_preferences;
};

} // namespace attnviz::app
