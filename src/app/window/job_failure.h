#pragma once

#include <QString>

#include <exception>

namespace attnviz::app {

/// What a job on a worker thread threw, as the one sentence the window shows: `noMemory` for
/// std::bad_alloc, an exception's own sentence, or a general one for anything else. Every job
/// ends in `catch (...)` with this, so nothing escapes into Qt's thread pool.
QString jobFailure(std::exception_ptr thrown, const QString& noMemory);

} // namespace attnviz::app
