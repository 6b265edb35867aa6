#pragma once

#include "lesson/walkthrough.h"

#include <QDialog>

#include <memory>

namespace attnviz::app {

/// A non-modal experiment window that follows the walkthrough the main window shows (the
/// session's shownChanged): it computes again only when the walkthrough or the batch item
/// changes, and only while it is open, since a long model run's block would cost a second pass;
/// what changed while it was closed is computed when it opens.
class FollowingDialog : public QDialog {
    Q_OBJECT
public:
    using QDialog::QDialog;

    void setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough, int batch);

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
    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    int m_batch = 0;
    bool m_stale = false;
};

} // namespace attnviz::app
