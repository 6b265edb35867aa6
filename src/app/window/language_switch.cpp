#include "app/window/language_switch.h"

#include "app/window/fit_to_screen.h"
#include "app/window/language.h"
#include "app/window/lesson_files.h"
#include "app/window/main_window.h"
#include "app/window/session.h"
#include "app/window/settings_store.h"
#include "app/window/window_lesson.h"

#include <QActionGroup>
#include <QMenu>
#include <QSettings>

namespace attnviz::app {

LanguageSwitch::LanguageSwitch(MainWindow* window, const Session* session, WindowLesson* lesson,
                               QMenu* menu)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_lesson(lesson)
{
    auto* group = new QActionGroup(this);
    for (const Language& language : kLanguages) {
        const QString code = QString::fromLatin1(language.code);
        QAction* action = menu->addAction(QString::fromUtf8(language.nativeName));
        action->setObjectName(QStringLiteral("language_") + code);
        action->setCheckable(true);
        action->setChecked(code == currentLanguage());
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] {
            // A lesson still waiting for its run is the one to rebuild around, not the half shown.
            if (code != currentLanguage())
                rebuildIn(code, m_session->pendingView().value_or(m_lesson->current()));
        });
    }
}

void LanguageSwitch::rebuildIn(const QString& code, const lesson::LessonFile& shown)
{
    m_lesson->keepForNextStart();
    saveSessionLesson(shown);
    applyLanguage(code);
    QSettings store;
    saveLanguage(store, currentLanguage());
    auto* next = new MainWindow;
    next->setAttribute(Qt::WA_DeleteOnClose);
    next->restoreGeometry(m_window->saveGeometry());
    fitToScreen(*next);
    next->show();
    // Closed without saving again: the session is the lesson handed to the new window.
    m_window->setAttribute(Qt::WA_DeleteOnClose);
    m_window->hide();
    m_window->deleteLater();
}

} // namespace attnviz::app
