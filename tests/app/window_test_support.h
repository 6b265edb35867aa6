#pragma once

#include "app/panels/input_panel.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/main_window.h"
#include "app/window/model_runner.h"
#include "app/window/session.h"
#include "app/window/walkthrough_runner.h"

#include "lesson/playground_settings.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTest>

#include <memory>

namespace attnviz::test {
// Every wait is for a condition, and its limit only says when to give up: long enough for a
// model run under AddressSanitizer on a 2-core machine busy with other builds (a 5 s limit
// failed there), so that the suite's result does not depend on the machine's speed.
inline constexpr int kPatienceMs = 120000;
} // namespace attnviz::test
#undef QTRY_VERIFY
#define QTRY_VERIFY(expr) QTRY_VERIFY_WITH_TIMEOUT(expr, attnviz::test::kPatienceMs)
#undef QTRY_COMPARE
#define QTRY_COMPARE(expr, expected)                                                               \
    QTRY_COMPARE_WITH_TIMEOUT(expr, expected, attnviz::test::kPatienceMs)

namespace attnviz::test {

/// Waits until the window has computed and shown the newest request of both runners (the
/// session's becameIdle). False on timeout.
inline bool waitUntilIdle(const app::MainWindow& window, int timeoutMs = kPatienceMs)
{
    const app::Session& session = *window.session();
    if (!session.idle()) {
        QSignalSpy idle(&session, &app::Session::becameIdle);
        if (!idle.wait(timeoutMs) && !session.idle())
            return false;
    }
    QApplication::processEvents();
    return session.idle();
}

/// Shows `window` at 1400 × 900 and waits until it has computed what it opened on; null if it
/// never got there.
inline std::unique_ptr<app::MainWindow> shown(std::unique_ptr<app::MainWindow> window)
{
    window->resize(1400, 900);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()) || !waitUntilIdle(*window))
        return nullptr;
    return window;
}

/// A window on the random-weights playground with `settings`, shown and computed; null if it
/// never got there.
inline std::unique_ptr<app::MainWindow> openPlayground(
    const lesson::PlaygroundSettings& settings = {})
{
    auto window = std::make_unique<app::MainWindow>();
    window->modelPanel()->setRequest(lesson::ModelSource{});
    window->inputPanel()->setSettings(settings);
    window = shown(std::move(window));
    if (!window || !window->walkthrough())
        return nullptr;
    return window;
}

/// The heatmap view at `index` among those the step panel shows.
inline app::HeatmapView* shownView(const app::MainWindow& window, int index)
{
    return window.stepPanel()->grid()->visibleViews().at(static_cast<std::size_t>(index));
}

} // namespace attnviz::test
