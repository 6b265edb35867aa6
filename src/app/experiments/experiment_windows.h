#pragma once

#include "app/experiments/experiment_dialog.h"

#include <span>
#include <string_view>

class QWidget;

namespace attnviz::app {

/// The sections of the Experiments menu, in its order; a separator stands between two.
enum class ExperimentSection {
    /// The module shown, computed otherwise, and what trained heads do.
    ModuleAndHeads,
    /// What today's models add: rotary positions, the KV cache, sliding windows, sinks.
    TodaysAttention,
};

/// One experiment window: everything the app knows about it. The Experiments menu builds its
/// action, opens the window once and raises it on reopen, and subscribes it to the session
/// (ExperimentsMenu); tests find and read every window through this table.
struct ExperimentWindow {
    /// Stable, for tests and settings: the window's object name; its action's is "action" + Name.
    std::string_view name;
    /// The menu entry and its tooltip, as lupdate reads them (context ExperimentWindows).
    const char* text;
    const char* toolTip;
    /// QKeySequence's portable text; empty for none.
    const char* shortcut;
    ExperimentSection section;
    Following follows;
    /// A new window, hidden, owned by `parent`.
    ExperimentDialog* (*make)(QWidget* parent);
};

/// Every experiment window, in the menu's order.
extern const std::span<const ExperimentWindow> kExperimentWindows;

} // namespace attnviz::app
