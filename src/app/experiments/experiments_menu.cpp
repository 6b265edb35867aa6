#include "app/experiments/experiments_menu.h"

#include "app/experiments/experiment_windows.h"
#include "app/window/session.h"

#include <QAction>
#include <QCoreApplication>
#include <QMenu>

#include <algorithm>

namespace attnviz::app {
namespace {

QString translated(const char* text)
{
    return QCoreApplication::translate("ExperimentWindows", text);
}

std::size_t rowNamed(std::string_view name)
{
    return static_cast<std::size_t>(
        std::find_if(kExperimentWindows.begin(), kExperimentWindows.end(),
                     [name](const ExperimentWindow& row) { return row.name == name; }) -
        kExperimentWindows.begin());
}

QString fromName(std::string_view name)
{
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

// "kvCache" is the window; its action is "actionKvCache", as Designer would have named it.
QString actionName(std::string_view name)
{
    QString object = fromName(name);
    object[0] = object[0].toUpper();
    return QStringLiteral("action") + object;
}

} // namespace

ExperimentsMenu::ExperimentsMenu(const Session* session, QMenu* menu, QWidget* window)
    : QObject(window)
    , m_session(session)
    , m_owner(window)
    , m_windows(kExperimentWindows.size(), nullptr)
{
    for (std::size_t i = 0; i < kExperimentWindows.size(); ++i) {
        const ExperimentWindow& row = kExperimentWindows[i];
        if (i > 0 && row.section != kExperimentWindows[i - 1].section)
            menu->addSeparator();
        // Owned by the window, as Designer's actions are: their shortcuts work in all of it.
        auto* action = new QAction(translated(row.text), window);
        action->setObjectName(actionName(row.name));
        action->setToolTip(translated(row.toolTip));
        action->setShortcut(
            QKeySequence(QString::fromLatin1(row.shortcut), QKeySequence::PortableText));
        connect(action, &QAction::triggered, this, [this, i] { open(i); });
        menu->addAction(action);
        m_actions.push_back(action);
    }
}

QAction* ExperimentsMenu::action(std::string_view name) const
{
    const std::size_t row = rowNamed(name);
    return row < m_actions.size() ? m_actions[row] : nullptr;
}

ExperimentDialog* ExperimentsMenu::window(std::string_view name) const
{
    const std::size_t row = rowNamed(name);
    return row < m_windows.size() ? m_windows[row] : nullptr;
}

void ExperimentsMenu::open(std::size_t row)
{
    ExperimentDialog*& window = m_windows[row];
    if (!window) {
        const ExperimentWindow& info = kExperimentWindows[row];
        window = info.make(m_owner);
        window->setObjectName(fromName(info.name));
        connect(window, &ExperimentDialog::openHeadRequested, this,
                &ExperimentsMenu::openHeadRequested);
        connect(window, &ExperimentDialog::switchOffRequested, this,
                &ExperimentsMenu::switchOffRequested);
        window->subscribe(*m_session, info.follows);
    }
    window->show();
    window->raise();
}

} // namespace attnviz::app
