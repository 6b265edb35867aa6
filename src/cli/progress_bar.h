#pragma once

namespace attnviz::cli {

/// Whether a progress bar may be drawn: stderr is a terminal (a log would get every frame).
bool stderrIsTerminal();

/// A progress bar on stderr, redrawn in place: "exporting [#########           ] 72/144"; the
/// line ends when done reaches total.
void showProgress(const char* label, int done, int total);

} // namespace attnviz::cli
