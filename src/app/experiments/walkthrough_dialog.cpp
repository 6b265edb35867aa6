#include "app/experiments/walkthrough_dialog.h"

#include "app/window/session.h"

namespace attnviz::app {

void WalkthroughDialog::follow(const Session& session)
{
    if (session.walkthrough() == m_walkthrough && session.batch() == m_batch)
        return; // a refresh of the same computation: nothing to compute again
    m_walkthrough = session.walkthrough();
    m_batch = session.batch();
    recompute();
}

bool WalkthroughDialog::deferWhileClosed()
{
    m_stale = !isVisible();
    return m_stale;
}

void WalkthroughDialog::showEvent(QShowEvent* event)
{
    ExperimentDialog::showEvent(event);
    if (m_stale)
        recompute();
}

} // namespace attnviz::app
