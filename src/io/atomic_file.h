#pragma once

#include <span>
#include <stdexcept>
#include <string>

namespace attnviz::io {

/// A file that could not be written (or read): the message names the path and the system's reason.
class FileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Writes `bytes` to `path` so that a reader never sees a partial file: the data goes to a
/// temporary file beside `path`, is flushed to disk, and is renamed over `path` only when complete.
/// On any failure the temporary file is removed, `path` is left as it was, and FileError is thrown.
void writeFileAtomically(const std::string& path, std::span<const char> bytes);

/// The whole content of a file; throws FileError when it cannot be read.
std::string readFile(const std::string& path);

} // namespace attnviz::io
