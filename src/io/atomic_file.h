#pragma once

#include "io/file_error.h"
#include "io/removed_on_signal.h"

#include <cstdint>
#include <span>
#include <string>

namespace attnviz::io {

/// A file being written so that a reader never sees it partial: the bytes go to a temporary file
/// beside the target (same folder, so the final rename is atomic), are flushed to disk by
/// commit() and only then renamed over the target. Destroyed uncommitted, it removes the
/// temporary file and the target stays as it was. Every failure is a FileError naming the target.
/// A target that exists must be a regular file (a device such as /dev/null or a FIFO is never
/// replaced); a symbolic link is written through, replacing the file it names. The temporary
/// file is removed by SIGINT, SIGTERM or SIGHUP too (RemovedOnSignal), and one a dead process
/// left in the folder is swept away (sweepStaleTemporaries).
class AtomicFile {
public:
    explicit AtomicFile(std::string path);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    /// Appends bytes at the current end.
    void write(std::span<const char> bytes);
    /// Writes bytes at a position already reserved (a header written last).
    void writeAt(std::uint64_t offset, std::span<const char> bytes);
    std::uint64_t size() const { return m_size; }
    /// Where the data is until commit (for a final copy into a second temporary file).
    int descriptor() const { return m_fd; }
    void commit();
    const std::string& path() const { return m_path; }

private:
    [[noreturn]] void fail(const std::string& reason);

    std::string m_path;
    std::string m_target; ///< m_path, or the file it names when it is a symbolic link
    std::string m_tempPath;
    RemovedOnSignal m_removal; ///< m_tempPath until it is renamed or unlinked
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

/// Writes `bytes` to `path` through an AtomicFile.
void writeFileAtomically(const std::string& path, std::span<const char> bytes);

} // namespace attnviz::io
