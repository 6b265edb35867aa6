#pragma once

#include "io/file_error.h"

#include <cstdint>
#include <span>
#include <string>

namespace attnviz::io {

/// The default largest file readFile takes whole: configuration files, vocabularies and case
/// files are far smaller; anything bigger is memory-mapped instead (MappedFile).
inline constexpr std::uint64_t kMaxReadBytes = 512ull << 20;

/// The whole content of a regular file. Refuses, with FileError naming the path, a directory, a
/// FIFO, a device such as /dev/zero, a file above `limit` bytes, or one that cannot be read —
/// without ever blocking: the file is opened non-blocking and checked before reading.
std::string readFile(const std::string& path, std::uint64_t limit = kMaxReadBytes);

/// A regular file mapped read-only into memory: the bytes of a multi-gigabyte checkpoint are read
/// by the pages that are touched, not copied. Move-only; unmapped on destruction.
class MappedFile {
public:
    /// FileError as for readFile (the size is not limited).
    explicit MappedFile(const std::string& path);
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    std::span<const char> bytes() const { return {m_data, m_size}; }
    /// Gives back to the system the whole pages of `part` (a span inside bytes()): they leave
    /// this process's resident memory and are read from the file again if touched. A model's
    /// weights are read once, converted, and never looked at again; without this the mapped file
    /// stays resident beside the converted copy.
    void release(std::span<const char> part) const;
    /// Copies `part` (a span inside bytes()) into `out` with read calls rather than through the
    /// mapping. A model that streams its layers reads them long after opening; by then the file
    /// may have been truncated, and touching a mapped page past its end kills the process
    /// (SIGBUS), where this throws FileError. A file whose size or modification time changed
    /// since it was mapped is refused the same way, so a layer is never read from another file.
    void readAt(std::span<const char> part, char* out) const;

private:
    /// Whether `part` lies inside bytes().
    bool holds(std::span<const char> part) const;

    const char* m_data = nullptr;
    std::size_t m_size = 0;
    int m_fd = -1; ///< kept open for readAt
    std::string m_path; ///< for readAt's messages
    std::int64_t m_modifiedNs = 0; ///< the modification time when mapped
};

} // namespace attnviz::io
