#pragma once

#include "engine/transformer_model.h"

#include <QDialog>

namespace attnviz::app {

class Session;

/// What of the session an experiment window follows: the `follows` column of kExperimentWindows.
enum class Following {
    /// The walkthrough and batch item the step panel shows (Session::shownChanged).
    Walkthrough,
    /// The model result shown, none in the playground (Session::modelChanged).
    Model,
};

/// A window of the Experiments menu, one row of kExperimentWindows: non-modal, it shows what the
/// session shows and follows it by itself once subscribed, so the main window never pushes data
/// into it. What it asks of the main window (a head opened, a head switched off) it asks through
/// its signals, which the Experiments menu passes on; a window that asks nothing never emits them.
class ExperimentDialog : public QDialog {
    Q_OBJECT
public:
    using QDialog::QDialog;

    /// Reads `session` now, and again whenever what `following` names changes.
    void subscribe(const Session& session, Following following);
    /// Still computing off the GUI thread.
    virtual bool busy() const { return false; }

signals:
    /// Show this head of the model shown: its layer and block, its weights, the head in focus.
    void openHeadRequested(int layer, attnviz::engine::Block block, int head);
    /// Switch this head of the model shown off.
    void switchOffRequested(const attnviz::engine::Ablation::Head& head);

protected:
    /// Shows what `session` shows now. A window whose inputs did not change keeps what it
    /// computed: the signals it follows also fire for changes it does not read.
    virtual void follow(const Session& session) = 0;
};

} // namespace attnviz::app
