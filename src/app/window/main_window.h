#pragma once

#include "app/dialogs/preferences_dialog.h"
#include "app/window/session.h"
#include "app/window/view_state.h"
#include "lesson/lesson_file.h"

#include <QMainWindow>

#include <memory>

class QStackedWidget;

namespace Ui {
class MainWindow;
}

namespace attnviz::app {

class ExportMenu;
class GlossaryDialog;
class GuidedTour;
class FollowingDialog;
class InputPanel;
class MistakesDialog;
class ScalingDialog;
class AttentionSinksDialog;
class HeadTypesDialog;
class KvCacheDialog;
class PictureAttentionDialog;
class RolloutDialog;
class RotaryDialog;
class WindowReachDialog;
class ImportanceDialog;
class ModelOverview;
class ModelPanel;
class PresentationMode;
class StepPanel;

/// Builds the window and wires the panels, the views, the menus and the session (what is shown)
/// together; keeps the window's geometry and the session in QSettings. The step panel shows
/// either the playground's walkthrough or one attention block of a model run.
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
    /// The common-mistakes gallery, once opened (null before).
    MistakesDialog* mistakesDialog() const { return m_mistakes; }
    /// The scaling experiment, once opened (null before).
    ScalingDialog* scalingDialog() const { return m_scaling; }
    /// The head-importance window, once opened (null before).
    ImportanceDialog* importanceDialog() const { return m_importance; }
    AttentionSinksDialog* attentionSinksDialog() const { return m_sinks; }
    KvCacheDialog* kvCacheDialog() const { return m_kvCache; }
    HeadTypesDialog* headTypesDialog() const { return m_headTypes; }
    RolloutDialog* rolloutDialog() const { return m_rollout; }
    PictureAttentionDialog* pictureAttentionDialog() const { return m_pictureAttention; }
    /// A picture file for the Vision Transformer shown (a drop on the window, File ▸ Open's
    /// counterpart): false, with a sentence in the status bar, when the model shown reads text.
    bool openPicture(const QString& path);
    RotaryDialog* rotaryDialog() const { return m_rotary; }
    WindowReachDialog* windowReachDialog() const { return m_windowReach; }
    /// The last model result shown (empty in the playground).
    const ModelResult& modelResult() const { return m_session->modelResult(); }
    StepPanel* stepPanel() const { return m_steps; }
    std::shared_ptr<const lesson::Walkthrough> walkthrough() const
    {
        return m_session->walkthrough();
    }
    /// What is on screen, for the Export menu and saved lessons.
    ViewState viewState() const;

    /// What the window shows as a saved lesson: the source, the text, the view and the language.
    lesson::LessonFile lesson() const;
    /// Shows a lesson: the source and text now, the block, step, view and head once its run is
    /// on screen. A lesson in another language rebuilds the window in that language first.
    void openLesson(const lesson::LessonFile& lesson);
    /// File ▸ Open lesson and the command line: false, with one sentence in a message box and
    /// the window unchanged, when the file cannot be read.
    bool openLessonFile(const QString& path);
    /// File ▸ Save lesson as: "" when saved, else why not (also shown in a message box).
    QString saveLessonFile(const QString& path);
    /// View ▸ Language: every text of the window in `code` (kLanguages). The window is rebuilt
    /// around the lesson it shows, so no text stays in the old language; the returned window is
    /// the new one (this one closes and is deleted).
    MainWindow* switchLanguage(const QString& code);
    /// Help ▸ Glossary, on the term with this key when one is given.
    GlossaryDialog* openGlossary(const QString& key);
    /// Help ▸ Guided tour (a first start offers it in the status bar).
    GuidedTour* startTour();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// Bounds the window to its screen, now and once shown.
    void fitToScreen();
    /// Panels and views follow the session; the session follows the panels' requests.
    void wireSession();
    void showWalkthrough(const std::shared_ptr<const lesson::Walkthrough>& walkthrough,
                         const QString& reason);
    void showModelResult(const ModelResult& result);
    void showPlayground();
    /// A lesson's block, step, view, batch item and head, once its run is on screen.
    void applyView(const lesson::LessonFile& view);
    /// File ▸ Preferences: a new memory limit is saved and the model shown runs again under it.
    void openPreferences();
    /// Experiments ▸ Common mistakes: opens the gallery on what the step panel shows.
    void openMistakes();
    /// Experiments ▸ Scaling the scores: opens the divisor experiment on what the step panel shows.
    void openScaling();
    /// Experiments ▸ Head importance: D2L 10.3's ranking for the model shown.
    void openImportance();
    void openAttentionSinks();
    void openKvCache();
    void openHeadTypes();
    void openRollout();
    void openPictureAttention();
    /// Opens a head of the model shown: its layer and block, the weights, the head in focus.
    void openHead(int layer, engine::Block block, int head);
    void openRotary();
    void openWindowReach();
    /// Tells the importance window (when open) which model the window shows now.
    void updateModelDialogs();
    /// Opens an experiment window on what the step panel shows, following it from then on.
    void showFollowing(FollowingDialog* dialog);
    /// A new window in language `code` that opens `shown`; this one hides and is deleted.
    MainWindow* rebuildIn(const QString& code, const lesson::LessonFile& shown);
    void fillLanguageMenu();
    /// One sentence in the status bar and in a message box.
    void warn(const QString& title, const QString& sentence);
    void fillRecentMenu();
    /// The session kept for the next start (and for a language switch): the lesson shown, plus
    /// the geometry and the settings the older keys keep.
    void saveSession();

    std::unique_ptr<Ui::MainWindow> m_ui;
    InputPanel* m_input;
    ModelPanel* m_model;
    StepPanel* m_steps;
    ModelOverview* m_overview;
    QStackedWidget* m_views;
    PresentationMode* m_presentation = nullptr;
    Session* m_session;
    ExportMenu* m_exports = nullptr;
    MistakesDialog* m_mistakes = nullptr;
    ScalingDialog* m_scaling = nullptr;
    ImportanceDialog* m_importance = nullptr;
    AttentionSinksDialog* m_sinks = nullptr;
    KvCacheDialog* m_kvCache = nullptr;
    HeadTypesDialog* m_headTypes = nullptr;
    RolloutDialog* m_rollout = nullptr;
    PictureAttentionDialog* m_pictureAttention = nullptr;
    RotaryDialog* m_rotary = nullptr;
    WindowReachDialog* m_windowReach = nullptr;
    GlossaryDialog* m_glossary = nullptr;
    Preferences m_preferences;
};

} // namespace attnviz::app
