#include "app/window/presentation_mode.h"

#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"

#include <QAction>
#include <QApplication>
#include <QMainWindow>
#include <QShortcut>
#include <QStatusBar>

#include <algorithm>

namespace attnviz::app {

PresentationMode::PresentationMode(QMainWindow* window, QAction* action, QWidget* settings,
                                   StepPanel* steps)
    : QObject(window)
    , m_window(window)
    , m_action(action)
    , m_settings(settings)
    , m_steps(steps)
    , m_stateBefore(window->windowState())
{
    connect(m_action, &QAction::toggled, this, &PresentationMode::setOn);
    addKeys();
}

bool PresentationMode::isOn() const
{
    return m_action->isChecked();
}

void PresentationMode::setOn(bool on)
{
    QFont f = QApplication::font();
    if (on)
        f.setPointSizeF(std::max(16.0, f.pointSizeF() * 1.6));
    m_window->setFont(f);
    // The whole screen of the projector; leaving returns to the window as it was.
    if (on && !m_window->isFullScreen()) {
        m_stateBefore = m_window->windowState();
        m_window->setWindowState(Qt::WindowFullScreen);
    } else if (!on && m_window->isFullScreen()) {
        m_window->setWindowState(m_stateBefore);
    }
    m_settings->setVisible(!on);
    m_steps->setPresentation(on);
    if (m_action->isChecked() != on)
        m_action->setChecked(on);
    for (QShortcut* key : m_keys)
        key->setEnabled(on);
    if (on) {
        m_window->statusBar()->showMessage(
            tr("Presentation: ←/→ steps · 1…9, 0 a step · H one head after another · S the "
               "settings · click a cell to mark it (Shift: its row, Ctrl: its column) · Esc "
               "leaves"));
        m_steps->setFocus();
    } else {
        m_window->statusBar()->clearMessage();
    }
}

void PresentationMode::addKeys()
{
    const auto add = [this](const QKeySequence& sequence, auto action) {
        auto* key = new QShortcut(sequence, m_window);
        key->setEnabled(false);
        connect(key, &QShortcut::activated, this, action);
        m_keys.push_back(key);
    };
    for (int digit = 0; digit <= 9; ++digit) {
        // 1 … 9 are the steps numbered 1 … 9 on screen and 0 is step 10, as on a keyboard's row
        // of digits; the numbers count the steps this module has.
        const auto number = static_cast<std::size_t>(digit == 0 ? 9 : digit - 1);
        add(QKeySequence(Qt::Key_0 + digit), [this, number] {
            const auto shown = lesson::shownLessonSteps(m_steps->shownTrace());
            if (number < shown.size())
                m_steps->setStep(shown[number]);
        });
    }
    add(QKeySequence(Qt::Key_H), [this] {
        // All heads → head 0 → head 1 → … → all heads again.
        HeadGridView* grid = m_steps->grid();
        const int next = grid->focusedHead() + 1;
        if (next < static_cast<int>(grid->matrices().size()) && grid->focusedHead() >= -1)
            grid->focusHead(next);
        if (grid->focusedHead() != next)
            grid->showAll();
    });
    add(QKeySequence(Qt::Key_S), [this] {
        m_settings->setVisible(!m_settings->isVisible());
        // Digits and letters typed into the settings must reach the fields.
        for (QShortcut* key : m_keys)
            if (key->key() != QKeySequence(Qt::Key_S) && key->key() != QKeySequence(Qt::Key_Escape))
                key->setEnabled(!m_settings->isVisible());
    });
    add(QKeySequence(Qt::Key_Escape), [this] { setOn(false); });
}

} // namespace attnviz::app
