#include "app/experiments/experiment_dialog.h"

#include "app/window/session.h"

namespace attnviz::app {

void ExperimentDialog::subscribe(const Session& session, Following following)
{
    const auto read = [this, &session] { follow(session); };
    switch (following) {
    case Following::Walkthrough:
        connect(&session, &Session::shownChanged, this, read);
        break;
    case Following::Model:
        connect(&session, &Session::modelChanged, this, read);
        break;
    }
    read();
}

} // namespace attnviz::app
