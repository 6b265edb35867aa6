#include "io/atomic_file.h"

#include "io/temporary_names.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz::io {
namespace {

std::string systemReason()
{
    return std::strerror(errno);
}

// A fresh temporary name in the target's folder (where the final rename must happen).
std::string temporaryPath(const std::string& target)
{
    return (std::filesystem::path(target).parent_path() / temporaryFileName()).string();
}

} // namespace

AtomicFile::AtomicFile(std::string path)
    : m_path(std::move(path))
    , m_target(m_path)
{
    struct stat existing { };
    if (::stat(m_path.c_str(), &existing) == 0) {
        if (S_ISDIR(existing.st_mode))
            throw FileError("cannot write " + printable(m_path) + ": it is a directory");
        // The rename would put a regular file in the place of a device (as root, /dev/null for
        // the whole system), a FIFO or a socket.
        if (!S_ISREG(existing.st_mode))
            throw FileError("cannot write " + printable(m_path) +
                            ": it is not a regular file (a device, FIFO or socket); expected a "
                            "file to create or replace");
        // A symbolic link is written through: the file it names is replaced, not the link
        // (which may be /dev/stdout).
        struct stat link { };
        std::error_code error;
        if (::lstat(m_path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
            const std::filesystem::path resolved = std::filesystem::canonical(m_path, error);
            if (!error)
                m_target = resolved.string();
        }
    }
    sweepStaleTemporaries(std::filesystem::path(m_target).parent_path().string());
    // O_EXCL: never write into a file someone else made; the mode goes through the user's umask.
    for (int attempt = 0; attempt < 16 && m_fd < 0; ++attempt) {
        m_tempPath = temporaryPath(m_target);
        // Registered before it exists: a signal between the two finds nothing to remove, never
        // a file nobody knows of.
        m_removal = RemovedOnSignal(m_tempPath, RemovedOnSignal::Kind::File);
        m_fd = ::open(m_tempPath.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd >= 0)
            break;
        const int reason = errno;
        m_removal = {}; // the name is someone else's, or nothing
        if (reason != EEXIST)
            throw FileError("cannot write " + printable(m_path) + ": " + std::strerror(reason));
    }
    if (m_fd < 0)
        throw FileError("cannot write " + printable(m_path) + ": " + std::strerror(EEXIST));
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        ::unlink(m_tempPath.c_str());
    }
}

void AtomicFile::fail(const std::string& reason)
{
    ::close(m_fd);
    ::unlink(m_tempPath.c_str());
    m_fd = -1;
    throw FileError("cannot write " + printable(m_path) + ": " + reason);
}

void AtomicFile::writeAt(std::uint64_t offset, std::span<const char> bytes)
{
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::pwrite(m_fd, bytes.data() + written, bytes.size() - written,
                                   static_cast<off_t>(offset + written));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(systemReason());
        }
        written += static_cast<std::size_t>(n);
    }
    m_size = std::max<std::uint64_t>(m_size, offset + bytes.size());
}

void AtomicFile::write(std::span<const char> bytes)
{
    writeAt(m_size, bytes);
}

void AtomicFile::commit()
{
    if (::fsync(m_fd) != 0)
        fail(systemReason());
    if (::close(m_fd) != 0) {
        m_fd = -1;
        const std::string reason = systemReason();
        ::unlink(m_tempPath.c_str());
        throw FileError("cannot write " + printable(m_path) + ": " + reason);
    }
    m_fd = -1;
    if (::rename(m_tempPath.c_str(), m_target.c_str()) != 0) {
        const std::string reason = systemReason();
        ::unlink(m_tempPath.c_str());
        throw FileError("cannot write " + printable(m_path) + ": " + reason);
    }
    m_removal = {}; // final now
}

void writeFileAtomically(const std::string& path, std::span<const char> bytes)
{
    AtomicFile file(path);
    file.write(bytes);
    file.commit();
}

} // namespace attnviz::io
