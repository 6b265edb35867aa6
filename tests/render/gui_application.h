#pragma once

#include <QGuiApplication>

namespace attnviz::test {

/// Fonts, painting and translators need an application object. The suites of render_tests
/// share one, made by whichever suite runs first, and it lives until the process ends.
inline void ensureGuiApplication()
{
    static int argc = 1;
    static char name[] = "render_tests";
    static char* argv[] = {name, nullptr};
    if (!QGuiApplication::instance())
        new QGuiApplication(argc, argv);
}

} // namespace attnviz::test
