#pragma once

#include "lesson/lesson_file.h"

#include <QObject>

class QMenu;

namespace attnviz::app {

class MainWindow;
class Session;
class WindowLesson;

/// View ▸ Language: the interface in another language of kLanguages. The translators change
/// (applyLanguage) and a new MainWindow is built around the lesson the old one showed, so no
/// text of the old language can survive in a widget that forgot to retranslate.
class LanguageSwitch : public QObject {
    Q_OBJECT
public:
    /// Fills `menu` with one checkable action per language for `window`, which shows `lesson`.
    LanguageSwitch(MainWindow* window, const Session* session, WindowLesson* lesson, QMenu* menu);

    /// A new window in language `code` that opens `shown`; this one hides and is deleted.
    void rebuildIn(const QString& code, const lesson::LessonFile& shown);

private:
    MainWindow* m_window;
    const Session* m_session;
    WindowLesson* m_lesson;
};

} // namespace attnviz::app
