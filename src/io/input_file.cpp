#include "io/input_file.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace attnviz::io {
namespace {

std::string reason()
{
    return std::strerror(errno);
}

// Opens `path` for reading without blocking (a FIFO with no writer would block a plain open) and
// checks that it is a regular file. Returns the descriptor and the size.
std::pair<int, std::uint64_t> openRegular(const std::string& path)
{
    const std::string shown = printable(path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        throw FileError("cannot read " + shown + ": " + reason());
    struct stat info { };
    if (::fstat(fd, &info) != 0) {
        const std::string why = reason();
        ::close(fd);
        throw FileError("cannot read " + shown + ": " + why);
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        throw FileError("cannot read " + shown + ": " +
                        (S_ISDIR(info.st_mode)
                             ? std::string("it is a directory")
                             : std::string("it is not a regular file (a device, FIFO or socket)")));
    }
    return {fd, static_cast<std::uint64_t>(info.st_size)};
}

} // namespace

std::string readFile(const std::string& path, std::uint64_t limit)
{
    const auto [fd, size] = openRegular(path);
    if (size > limit) {
        ::close(fd);
        throw FileError("cannot read " + printable(path) + ": it has " + std::to_string(size) +
                        " bytes, more than the " + std::to_string(limit) + " this file may have");
    }
    std::string content(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::read(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const std::string why = n < 0 ? reason() : "the file shrank while it was read";
            ::close(fd);
            throw FileError("cannot read " + printable(path) + ": " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return content;
}

namespace {

std::int64_t modifiedNs(const struct stat& info)
{
    return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

} // namespace

MappedFile::MappedFile(const std::string& path)
    : m_path(path)
{
    const auto [fd, size] = openRegular(path);
    m_fd = fd;
    m_size = static_cast<std::size_t>(size);
    struct stat info { };
    if (::fstat(fd, &info) == 0)
        m_modifiedNs = modifiedNs(info);
    if (m_size > 0) {
        void* data = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data == MAP_FAILED) {
            const std::string why = reason();
            ::close(fd);
            throw FileError("cannot read " + printable(path) + ": " + why);
        }
        m_data = static_cast<const char*>(data);
    }
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_size(std::exchange(other.m_size, 0))
    , m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
    , m_modifiedNs(other.m_modifiedNs)
{
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept
{
    if (this != &other) {
        if (m_data)
            ::munmap(const_cast<char*>(m_data), m_size);
        if (m_fd >= 0)
            ::close(m_fd);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
        m_modifiedNs = other.m_modifiedNs;
    }
    return *this;
}

bool MappedFile::holds(std::span<const char> part) const
{
    return part.data() >= m_data && part.data() + part.size() <= m_data + m_size;
}

void MappedFile::readAt(std::span<const char> part, char* out) const
{
    const std::string shown = printable(m_path);
    if (m_fd < 0 || !holds(part))
        throw FileError("cannot read " + shown + ": the bytes asked for are not in the file");
    struct stat info { };
    if (::fstat(m_fd, &info) != 0)
        throw FileError("cannot read " + shown + ": " + reason());
    if (static_cast<std::uint64_t>(info.st_size) != m_size || modifiedNs(info) != m_modifiedNs)
        throw FileError(shown + " changed on disk after it was opened; open it again");
    auto offset = static_cast<off_t>(part.data() - m_data);
    std::size_t done = 0;
    while (done < part.size()) {
        const ssize_t n = ::pread(m_fd, out + done, part.size() - done, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw FileError("cannot read " + shown + ": " +
                            (n < 0 ? reason() : "the file shrank after it was opened"));
        done += static_cast<std::size_t>(n);
        offset += n;
    }
}

void MappedFile::release(std::span<const char> part) const
{
    if (!m_data || !holds(part))
        return;
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGE_SIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(part.data()) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(part.data() + part.size())) / page * page;
    // Advice only: on failure the pages simply stay, as they would without it.
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<char*>(m_data), m_size);
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace attnviz::io
