#pragma once

#include <stdexcept>
#include <string>

namespace attnviz::io {

/// A file that could not be read or written: the message names the path and the system's reason
/// in one sentence.
class FileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A name or a text from the input as it may be echoed in a message: on one line, control
/// characters and bytes that are not UTF-8 escaped (`\n`, `\x1b`, `\x9b`), cut to `limit`
/// bytes (between characters) with "…" — so that a hostile name can neither split stderr into
/// several lines nor recolour a terminal.
std::string printable(std::string_view text, std::size_t limit = 200);

} // namespace attnviz::io
