// Exceptions in the app: one escaping an event handler is reported and the application goes on
// (a std::bad_alloc in a view of a huge run must not end the program, #22 item 5); one thrown
// by a worker's job becomes the sentence the window shows.
#include "app/window/guarded_application.h"
#include "app/window/job_failure.h"

#include <QTimer>

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

namespace {

attnviz::app::GuardedApplication& application()
{
    static int argc = 1;
    static char name[] = "guarded_application_test";
    static char* argv[] = {name, nullptr};
    static attnviz::app::GuardedApplication app(argc, argv);
    return app;
}

TEST(GuardedApplication, AnExceptionFromASlotIsReportedAndTheLoopGoesOn)
{
    auto& app = application();
    QStringList reports;
    app.setReporter([&](const QString& sentence) { reports << sentence; });
    bool after = false;
    QTimer::singleShot(0, [] { throw std::bad_alloc(); });
    QTimer::singleShot(0, [] { throw std::runtime_error("a view could not be drawn"); });
    QTimer::singleShot(10, [&] {
        after = true;
        QCoreApplication::quit();
    });
    QCoreApplication::exec();
    EXPECT_TRUE(after);
    ASSERT_EQ(reports.size(), 2);
    EXPECT_TRUE(reports[0].contains(QStringLiteral("not enough memory")))
        << reports[0].toStdString();
    EXPECT_TRUE(reports[1].contains(QStringLiteral("a view could not be drawn")))
        << reports[1].toStdString();
}

TEST(JobFailure, WhatAWorkerThrewBecomesOneSentence)
{
    const auto failure = [](auto thrown) {
        return attnviz::app::jobFailure(std::make_exception_ptr(thrown),
                                        QStringLiteral("no memory"))
            .toStdString();
    };
    EXPECT_EQ(failure(std::bad_alloc()), "no memory");
    EXPECT_EQ(failure(std::runtime_error("The text is too long.")), "The text is too long.");
    EXPECT_EQ(failure(42), "The computation failed for an unknown reason.");
}

} // namespace
