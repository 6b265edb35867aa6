#include "app/window/guarded_application.h"

#include <QMessageBox>
#include <QTimer>

#include <cstdio>
#include <exception>
#include <new>
#include <utility>

namespace attnviz::app {

GuardedApplication::GuardedApplication(int& argc, char** argv)
    : QApplication(argc, argv)
    , m_reporter([](const QString& sentence) {
        std::fprintf(stderr, "attnviz: %s\n", sentence.toLocal8Bit().constData());
        // Later, from the event loop: the failing event may have been in the middle of a paint.
        QTimer::singleShot(0, [sentence] {
            auto* box =
                new QMessageBox(QMessageBox::Warning,
                                QCoreApplication::translate("attnviz::app::GuardedApplication",
                                                            "Something went wrong"),
                                sentence, QMessageBox::Ok);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        });
    })
{
}

void GuardedApplication::setReporter(std::function<void(const QString&)> reporter)
{
    m_reporter = std::move(reporter);
}

bool GuardedApplication::notify(QObject* receiver, QEvent* event)
{
    try {
        return QApplication::notify(receiver, event);
    } catch (const std::bad_alloc&) {
        report(QCoreApplication::translate(
            "attnviz::app::GuardedApplication",
            "There was not enough memory for what was asked; the window shows what it "
            "could, and the last action was not completed."));
    } catch (const std::exception& e) {
        report(QCoreApplication::translate("attnviz::app::GuardedApplication",
                                           "The last action failed: %1")
                   .arg(QString::fromStdString(e.what())));
    } catch (...) {
        report(QCoreApplication::translate("attnviz::app::GuardedApplication",
                                           "The last action failed for an unknown reason."));
    }
    return false;
}

void GuardedApplication::report(const QString& sentence)
{
    // A report that itself fails (no memory left for a message box) must not recurse.
    if (std::exchange(m_reporting, true))
        return;
    try {
        m_reporter(sentence);
    } catch (...) {
        // Nothing is left to report with; the window goes on.
    }
    m_reporting = false;
}

} // namespace attnviz::app
