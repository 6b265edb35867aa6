#pragma once

namespace attnviz::cli {

/// Exit codes of every attnviz-cli command; `--help` documents them.
enum ExitCode : int {
    kExitOk = 0,
    kExitWriteFailed = 1, ///< the input was fine but the output could not be written
    kExitBadInput = 2,    ///< bad arguments or a bad input file: nothing was written
};

} // namespace attnviz::cli
