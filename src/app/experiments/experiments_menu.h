#pragma once

#include "app/experiments/experiment_dialog.h"

#include <QObject>

#include <string_view>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace attnviz::app {

class Session;
struct ExperimentWindow;

/// Experiments ▸ …: one action per row of kExperimentWindows, in its order and sections, with its
/// text, tooltip and shortcut. An action opens its window the first time (subscribed to the
/// session, as its row says) and raises it afterwards. What the windows ask of the main window
/// comes out of this object's signals, whichever window asked.
class ExperimentsMenu : public QObject {
    Q_OBJECT
public:
    /// Fills `menu`; the windows are `window`'s and read `session`.
    ExperimentsMenu(const Session* session, QMenu* menu, QWidget* window);

    /// The action of the row named `name`; null for a name the table lacks.
    QAction* action(std::string_view name) const;
    /// The window of the row named `name`, once opened; null before.
    ExperimentDialog* window(std::string_view name) const;
    template <class Window> Window* window(std::string_view name) const
    {
        return qobject_cast<Window*>(window(name));
    }

signals:
    void openHeadRequested(int layer, attnviz::engine::Block block, int head);
    void switchOffRequested(const attnviz::engine::Ablation::Head& head);

private:
    void open(std::size_t row);

    const Session* m_session;
    QWidget* m_owner; ///< the main window: it owns the actions and the windows
    std::vector<QAction*> m_actions; ///< one per row of kExperimentWindows
    std::vector<ExperimentDialog*> m_windows; ///< likewise; null until opened
};

} // namespace attnviz::app
