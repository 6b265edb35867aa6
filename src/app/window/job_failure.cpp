#include "app/window/job_failure.h"

#include <QCoreApplication>

#include <new>

namespace attnviz::app {

QString jobFailure(std::exception_ptr thrown, const QString& noMemory)
{
    try {
        std::rethrow_exception(thrown);
    } catch (const std::bad_alloc&) {
        return noMemory;
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    } catch (...) {
        return QCoreApplication::translate("attnviz::app::JobFailure",
                                           "The computation failed for an unknown reason.");
    }
}

} // namespace attnviz::app
