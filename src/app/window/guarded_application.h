#pragma once

#include <QApplication>

#include <functional>

namespace attnviz::app {

/// The application object, with one exception boundary around every event it delivers: an
/// exception that escapes a slot or an event handler (running out of memory while drawing a view
/// of a huge run, say) would otherwise end the program with std::terminate and lose the session.
/// Instead the event is dropped, and the sentence is reported — on stderr and, once the event
/// loop is free again, in a message box.
class GuardedApplication : public QApplication {
public:
    GuardedApplication(int& argc, char** argv);

    bool notify(QObject* receiver, QEvent* event) override;

    /// Where an escaped exception's sentence goes (the default: stderr and a message box).
    void setReporter(std::function<void(const QString&)> reporter);

private:
    void report(const QString& sentence);

    std::function<void(const QString&)> m_reporter;
    bool m_reporting = false;
};

} // namespace attnviz::app
