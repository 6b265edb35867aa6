#pragma once

#include "lesson/lesson_file.h"

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace attnviz::app {

class InputPanel;
class ModelPanel;
class Session;
class StepPanel;

/// The lesson a main window shows, as a lesson::LessonFile (the source, the text, the view, the
/// language). It is read from the panels for File ▸ Save lesson as, for the session kept at
/// close and for a language switch, and applied to them for File ▸ Open lesson, Open recent
/// lesson, the command line and the next start: the source and text at once, the block, step,
/// view and head once their run is on screen (Session::awaitView, then viewReady).
class WindowLesson : public QObject {
    Q_OBJECT
public:
    /// What a lesson is read from and applied to.
    struct Panels {
        Session* session;
        ModelPanel* model;
        InputPanel* input;
        StepPanel* steps;
    };
    /// Keeps the step shown in QSettings as soon as it changes, so the app reopens on it even
    /// after a crash.
    WindowLesson(QMainWindow* window, const Panels& panels);

    /// File ▸ Open lesson, Save lesson as and Open recent lesson.
    void addToMenu(QAction* open, QAction* save, QMenu* recent);

    /// What the window shows as a saved lesson.
    lesson::LessonFile current() const;
    /// Shows a lesson: the source and text now, the block, step, view and head once its run is
    /// on screen. A lesson in another language of the interface is handed to otherLanguage.
    void open(const lesson::LessonFile& lesson);
    /// File ▸ Open lesson and the command line: false, with one sentence in a message box and
    /// the window unchanged, when the file cannot be read.
    bool openFile(const QString& path);
    /// File ▸ Save lesson as: "" when saved, else why not (also shown in a message box).
    QString saveFile(const QString& path);
    /// The session kept for the next start (and for a language switch): the lesson shown, plus
    /// the geometry and the settings the older keys keep.
    void keepForNextStart();
    /// Where the user left off: the whole lesson kept at close; without one (a first start, or
    /// the app closed by a crash) the model, step and playground kept key by key.
    void reopen();

signals:
    /// `lesson` was written in another language of the interface, `code`: the window is to be
    /// rebuilt in that language around it.
    void otherLanguage(const QString& code, const attnviz::lesson::LessonFile& lesson);

private:
    /// A lesson's block, step, view, batch item and head, once its run is on screen.
    void applyView(const lesson::LessonFile& view);
    void fillRecentMenu(QMenu* menu);
    /// One sentence in the status bar and in a message box.
    void warn(const QString& title, const QString& sentence);

    QMainWindow* m_window;
    Panels m_panels;
};

} // namespace attnviz::app
