#pragma once

class QMenuBar;
class QWidget;

namespace attnviz::app {

/// Help ▸ About: the version and the libraries it was built with.
void showAbout(QWidget* parent);

/// Help ▸ Keyboard shortcuts: every shortcut of `menus`' actions, read from the actions
/// themselves so the list cannot fall behind the menus, and presentation mode's keys.
void showShortcuts(QWidget* parent, const QMenuBar* menus);

} // namespace attnviz::app
