#pragma once

#include <QGuiApplication>

namespace attnviz::test {

/// Fonts, painting and translators need an application object. The suites of render_tests
/// share one, made by whichever suite runs first; it is destroyed at exit, so that
/// LeakSanitizer (the asan preset) finds nothing left over.
inline void ensureGuiApplication()
{
    static int argc = 1;
    static char name[] = "render_tests";
    static char* argv[] = {name, nullptr};
    if (!QGuiApplication::instance())
        static QGuiApplication application(argc, argv);
}

} // namespace attnviz::test
