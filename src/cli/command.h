#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::cli {

/// An output that could not be written (exit status 1), as opposed to a bad input (2).
class WriteFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Exit codes of every attnviz-cli command; `--help` documents them.
enum ExitCode : int {
    kExitOk = 0,
    kExitWriteFailed = 1, ///< the input was fine but the output could not be written
    kExitBadInput = 2, ///< bad arguments or a bad input file: nothing was written
};

/// A command of attnviz-cli: its name, a line for the overview, and how to run it.
struct Command {
    std::string_view name;
    std::string_view synopsis;
    std::string_view summary;
    int (*run)(const std::vector<std::string>& args);
};

/// Every command, in the order `attnviz-cli --help` lists them.
const std::vector<Command>& commands();

/// Runs `work` as command `name`'s exception boundary: whatever escapes becomes one line on
/// stderr, "attnviz-cli NAME: sentence", and an exit status — 1 for WriteFailed, 2 for anything
/// else (bad arguments, bad input, an existing file, running out of memory, an unexpected
/// error). Never an abort.
int runGuarded(std::string_view name, const std::function<int()>& work);

int runMhaCommand(const std::vector<std::string>& args);
int runTraceCommand(const std::vector<std::string>& args);
int runExportCommand(const std::vector<std::string>& args);
int runImportanceCommand(const std::vector<std::string>& args);
int runRolloutCommand(const std::vector<std::string>& args);
int runPictureCommand(const std::vector<std::string>& args);

} // namespace attnviz::cli
