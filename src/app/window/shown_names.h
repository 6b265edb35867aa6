#pragma once

#include <QString>

#include <cstddef>

namespace attnviz::app {

/// A name from the file system or from a file, as the window shows it: escaped onto one line by
/// io::printable (control, bidirectional-formatting and invalid characters as codes) and cut to
/// `limit` bytes, so that a hostile name can neither break nor reorder the sentence around it.
QString shownText(const QString& text, std::size_t limit = 200);

/// The last part of a path (a folder's name, "models/gpt2/" giving "gpt2"), shown as above.
QString shownFileName(const QString& path);

/// A whole path in the system's separators, shown as above.
QString shownPath(const QString& path);

} // namespace attnviz::app
