#pragma once

#include "app/experiments/experiment_dialog.h"
#include "lesson/walkthrough.h"

#include <memory>

namespace attnviz::app {

/// An experiment window that computes from the walkthrough the step panel shows
/// (Following::Walkthrough): again only when the walkthrough or the batch item changes, and only
/// while it is open, since a long model run's block would cost a second pass; what changed while
/// it was closed is computed when it opens.
class WalkthroughDialog : public ExperimentDialog {
    Q_OBJECT
public:
    using ExperimentDialog::ExperimentDialog;

protected:
    const std::shared_ptr<const lesson::Walkthrough>& walkthrough() const { return m_walkthrough; }
    int batch() const { return m_batch; }
    /// Computes from walkthrough() and batch(); starts with `if (deferWhileClosed()) return;`
    /// after whatever is cheap enough to update while closed.
    virtual void recompute() = 0;
    /// True (and the work remembered for showEvent) when the dialog is closed.
    bool deferWhileClosed();
    void showEvent(QShowEvent* event) override;

private:
    void follow(const Session& session) final;

    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    int m_batch = 0;
    bool m_stale = false;
};

} // namespace attnviz::app
