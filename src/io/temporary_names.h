#pragma once

#include <string>

namespace attnviz::io {

/// The names AttnViz gives what it writes before it is final, in the folder where it will land:
/// `.attnviz-PID-HEX.tmp` for a file (AtomicFile) and `.attnviz-export-PID-HEX` for a file set's
/// staging folder (FileSetWriter), PID being the writing process's and HEX random. They never
/// lengthen the target's name, so a target at the file system's limit still gets a legal one.
std::string temporaryFileName();
std::string stagingFolderName();

/// Removes from `folder` the temporary files and staging folders that dead processes left
/// behind — killed by SIGKILL, crashed, cut off by a power failure: names of the forms above,
/// owned by this user, whose PID is no running process. A folder is swept once per process.
/// Errors are ignored: a leftover is not worth failing a write for.
void sweepStaleTemporaries(const std::string& folder);

} // namespace attnviz::io
