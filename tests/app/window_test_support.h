#pragma once

#include "app/head_grid_view.h"
#include "app/main_window.h"
#include "app/model_runner.h"
#include "app/step_panel.h"
#include "app/walkthrough_runner.h"

#include <QApplication>
#include <QTest>

namespace attnviz::test {

/// Waits until the window has computed and shown the newest request of both runners: twice,
/// since a finished run may start the request that arrived meanwhile. False on timeout.
inline bool waitUntilIdle(const app::MainWindow& window, int timeoutMs = 5000)
{
    const auto idle = [&] { return !window.runner()->busy() && !window.modelRunner()->busy(); };
    for (int i = 0; i < 2; ++i) {
        if (!QTest::qWaitFor(idle, timeoutMs))
            return false;
        QTest::qWait(20);
    }
    QApplication::processEvents();
    return true;
}

/// The heatmap view at `index` among those the step panel shows.
inline app::HeatmapView* shownView(const app::MainWindow& window, int index)
{
    return window.stepPanel()->grid()->visibleViews().at(static_cast<std::size_t>(index));
}

} // namespace attnviz::test
