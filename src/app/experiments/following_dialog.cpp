#include "app/experiments/following_dialog.h"

namespace attnviz::app {

void FollowingDialog::setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough,
                                     int batch)
{
    if (walkthrough == m_walkthrough && batch == m_batch)
        return; // a refresh of the same computation: nothing to compute again
    m_walkthrough = std::move(walkthrough);
    m_batch = batch;
    recompute();
}

bool FollowingDialog::deferWhileClosed()
{
    m_stale = !isVisible();
    return m_stale;
}

void FollowingDialog::showEvent(QShowEvent* event)
{
    QDialog::showEvent(event);
    if (m_stale)
        recompute();
}

} // namespace attnviz::app
