#include "app/window/window_lesson.h"

#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/language.h"
#include "app/window/lesson_files.h"
#include "app/window/session.h"
#include "app/window/settings_store.h"
#include "app/window/shown_names.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>

namespace attnviz::app {

WindowLesson::WindowLesson(QMainWindow* window, const Panels& panels)
    : QObject(window)
    , m_window(window)
    , m_panels(panels)
{
    connect(m_panels.session, &Session::viewReady, this, &WindowLesson::applyView);
    connect(m_panels.steps, &StepPanel::stepChanged, this, [](lesson::LessonStepIndex step) {
        QSettings store;
        saveStep(store, step);
    });
}

void WindowLesson::addToMenu(QAction* open, QAction* save, QMenu* recent)
{
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Open a lesson"), QString(),
                                                          tr("AttnViz lessons (*.attnviz)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(save, &QAction::triggered, this, [this] {
        QFileDialog dialog(m_window, tr("Save the lesson"), QString(),
                           tr("AttnViz lessons (*.attnviz)"));
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(QStringLiteral("attnviz"));
        if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty())
            saveFile(dialog.selectedFiles().constFirst());
    });
    connect(recent, &QMenu::aboutToShow, this, [this, recent] { fillRecentMenu(recent); });
    fillRecentMenu(recent);
}

lesson::LessonFile WindowLesson::current() const
{
    lesson::LessonFile l;
    if (!m_panels.model->playground()) {
        l.model = m_panels.model->request();
        l.choice = m_panels.model->choice();
    }
    l.playground = m_panels.input->settings();
    const StepPanel& steps = *m_panels.steps;
    const std::string_view key = steps.lessonStep().key;
    l.step.assign(key.begin(), key.end());
    l.alternative = std::max(0, steps.alternative());
    l.batch = std::max(0, m_panels.session->batch());
    l.focusedHead = steps.grid()->focusedHead();
    l.sharedColourRange = steps.sharedColourRange();
    l.numbersInCells = steps.numbersInCells();
    l.language = currentLanguage().toStdString();
    return l;
}

void WindowLesson::open(const lesson::LessonFile& lesson)
{
    if (QString::fromStdString(lesson.language) != currentLanguage() &&
        std::any_of(kLanguages.begin(), kLanguages.end(),
                    [&](const Language& l) { return lesson.language == l.code; })) {
        emit otherLanguage(QString::fromStdString(lesson.language), lesson);
        return;
    }
    StepPanel& steps = *m_panels.steps;
    m_panels.session->awaitView(lesson);
    steps.setSharedColourRange(lesson.sharedColourRange);
    steps.setNumbersInCells(lesson.numbersInCells);
    if (const auto step = lesson::lessonStepIndex(lesson.step))
        steps.setStep(*step);
    m_panels.input->setSettings(lesson.playground);
    // Settings equal to those shown emit no change: the playground is asked for directly.
    if (lesson.model.playground() && m_panels.model->playground())
        m_panels.session->showPlayground(m_panels.input->settings());
    else
        m_panels.model->setRequest(lesson.model);
}

void WindowLesson::applyView(const lesson::LessonFile& view)
{
    StepPanel& steps = *m_panels.steps;
    if (!view.model.playground())
        m_panels.model->setChoice(view.choice);
    if (const auto step = lesson::lessonStepIndex(view.step))
        steps.setStep(*step);
    steps.setBatchIndex(view.batch);
    steps.setAlternative(view.alternative);
    if (view.focusedHead >= 0)
        steps.grid()->focusHead(view.focusedHead);
}

bool WindowLesson::openFile(const QString& path)
{
    const LessonRead read = readLessonFile(path);
    if (!read.lesson) {
        warn(tr("Lesson not opened"), read.error);
        return false;
    }
    rememberLesson(path);
    m_window->statusBar()->showMessage(tr("Opened the lesson %1").arg(shownFileName(path)));
    open(*read.lesson);
    return true;
}

QString WindowLesson::saveFile(const QString& path)
{
    const QString error = writeLessonFile(path, current());
    if (!error.isEmpty()) {
        warn(tr("Lesson not saved"), error);
        return error;
    }
    rememberLesson(path);
    m_window->statusBar()->showMessage(tr("Saved the lesson as %1").arg(shownFileName(path)));
    return {};
}

void WindowLesson::keepForNextStart()
{
    QSettings store;
    saveWindowGeometry(store, m_window->saveGeometry());
    saveStep(store, m_panels.steps->step());
    savePlaygroundSettings(store, m_panels.input->settings());
    saveModelRequest(store, m_panels.model->request());
    saveSessionLesson(current());
}

void WindowLesson::reopen()
{
    if (std::optional<lesson::LessonFile> session = sessionLesson()) {
        session->language = currentLanguage().toStdString(); // the menu's language wins
        m_panels.session->setReopenedModel(session->model.folder);
        open(*session);
        return;
    }
    const QSettings store;
    m_panels.steps->setStep(loadStep(store));
    m_panels.input->setSettings(loadPlaygroundSettings(store));
    const lesson::ModelSource saved = loadModelRequest(store);
    m_panels.session->setReopenedModel(saved.folder);
    m_panels.model->setRequest(saved);
}

void WindowLesson::fillRecentMenu(QMenu* menu)
{
    menu->clear();
    const QStringList paths = recentLessons();
    for (const QString& path : paths) {
        QAction* action = menu->addAction(shownFileName(path));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    if (paths.isEmpty()) {
        menu->addAction(tr("No lessons yet"))->setEnabled(false);
        return;
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Clear the list")), &QAction::triggered, this,
            [] { forgetRecentLessons(); });
}

void WindowLesson::warn(const QString& title, const QString& sentence)
{
    m_window->statusBar()->showMessage(sentence);
    // Window-modal but not blocking, so tests and a start from the command line go on.
    auto* box = new QMessageBox(QMessageBox::Warning, title, sentence, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace attnviz::app
