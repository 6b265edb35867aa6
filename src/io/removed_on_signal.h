#pragma once

#include <string>

namespace attnviz::io {

/// One path a fatal signal removes: something this process created and has not finished — a
/// temporary file, an export's staging folder, an output folder it made. SIGINT (Ctrl-C),
/// SIGTERM and SIGHUP stop a command part-way, and "no partial file is ever left behind" must
/// hold then too. Writers register what they create for as long as it is unfinished; when the
/// handlers are installed (removeUnfinishedOutputOnSignals) such a signal removes every path
/// still registered, newest first, and then ends the process as the signal would have.
class RemovedOnSignal {
public:
    enum class Kind {
        File, ///< unlinked
        StagingFolder, ///< its entries (every one of them this process's) and then the folder
        CreatedFolder, ///< removed only while empty: whatever someone else put there stays
    };

    RemovedOnSignal() = default;
    /// Registers `path`; a path longer than the system's PATH_MAX cannot be, and is not.
    RemovedOnSignal(const std::string& path, Kind kind);
    RemovedOnSignal(RemovedOnSignal&& other) noexcept;
    RemovedOnSignal& operator=(RemovedOnSignal&& other) noexcept;
    RemovedOnSignal(const RemovedOnSignal&) = delete;
    RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;
    /// Unregisters: the path is final now, or its owner removed it.
    ~RemovedOnSignal();

private:
    int m_slot = -1;
};

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP that remove every registered path
/// (attnviz-cli does at start; the app does not, since Qt and the desktop end it).
void removeUnfinishedOutputOnSignals();

/// While one of these lives, those signals wait: a sequence of renames that must complete or be
/// undone as a whole (a file set's commit) is never cut in the middle. A signal that arrived
/// meanwhile acts when the last one ends.
class SignalsDeferred {
public:
    SignalsDeferred();
    SignalsDeferred(const SignalsDeferred&) = delete;
    SignalsDeferred& operator=(const SignalsDeferred&) = delete;
    ~SignalsDeferred();
};

} // namespace attnviz::io
