#include "io/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz::io {
namespace {

std::string systemReason()
{
    return std::strerror(errno);
}

// Creates a fresh file beside `path` (same directory, so the final rename is atomic). O_EXCL makes
// sure we never write into a file someone else made; the mode goes through the user's umask.
int createTemporary(const std::string& path, std::string& tempPath)
{
    std::random_device seed;
    std::mt19937_64 random(seed());
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::ostringstream name;
        name << path << ".tmp-" << getpid() << '-' << std::hex << random();
        tempPath = name.str();
        const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

} // namespace

void writeFileAtomically(const std::string& path, std::span<const char> bytes)
{
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode))
        throw FileError("cannot write " + path + ": it is a directory");

    std::string tempPath;
    const int fd = createTemporary(path, tempPath);
    if (fd < 0)
        throw FileError("cannot write " + path + ": " + systemReason());

    const auto failWith = [&](const std::string& reason) {
        ::close(fd);
        ::unlink(tempPath.c_str());
        throw FileError("cannot write " + path + ": " + reason);
    };

    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            failWith(systemReason());
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0)
        failWith(systemReason());
    if (::close(fd) != 0) {
        const std::string reason = systemReason();
        ::unlink(tempPath.c_str());
        throw FileError("cannot write " + path + ": " + reason);
    }
    if (::rename(tempPath.c_str(), path.c_str()) != 0) {
        const std::string reason = systemReason();
        ::unlink(tempPath.c_str());
        throw FileError("cannot write " + path + ": " + reason);
    }
}

std::string readFile(const std::string& path)
{
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        throw FileError("cannot read " + path + ": " + systemReason());
    if (S_ISDIR(info.st_mode))
        throw FileError("cannot read " + path + ": it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw FileError("cannot read " + path + ": " + systemReason());
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad())
        throw FileError("cannot read " + path + ": read error");
    return std::move(content).str();
}

} // namespace attnviz::io
