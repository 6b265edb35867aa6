#pragma once

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QMenu>
#include <QTimer>

namespace attnviz::test {

/// Right-clicks `target` at `at` and triggers the action of the context menu that opens whose
/// text starts with `action`; false when the menu had no such action (or none opened).
inline bool chooseFromContextMenu(QWidget* target, QPoint at, const QString& action)
{
    bool found = false;
    QTimer poll; // the menu runs its own event loop: look for it from inside that loop
    poll.setInterval(10);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!menu)
            return;
        poll.stop();
        for (QAction* a : menu->actions())
            if (!found && a->text().startsWith(action)) {
                found = true;
                a->trigger();
            }
        menu->close();
    });
    poll.start();
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, target->mapToGlobal(at));
    QApplication::sendEvent(target, &event);
    return found;
}

} // namespace attnviz::test
