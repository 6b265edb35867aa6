// attnviz-cli: the engine without a window, for scripts, tests and headless exports.
#include "cli/command.h"
#include "io/file_error.h"
#include "io/removed_on_signal.h"
#include "lesson/freed_memory.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

void printUsage(std::FILE* out)
{
    std::fprintf(out,
                 "Usage: attnviz-cli COMMAND [ARGS...]\n\nMulti-head attention, step by step, "
                 "without a window.\n\nCommands:\n");
    for (const attnviz::cli::Command& c : attnviz::cli::commands())
        std::fprintf(out, "  %.*s\n                 %.*s\n", static_cast<int>(c.synopsis.size()),
                     c.synopsis.data(), static_cast<int>(c.summary.size()), c.summary.data());
    std::fprintf(out,
                 "\nOptions:\n"
                 "  -h, --help     show this help (COMMAND --help shows a command's own)\n"
                 "  --version      show the version\n\n"
                 "Exit status: 0 on success, 2 on bad arguments or bad input (one sentence on "
                 "stderr, nothing\n"
                 "written), 1 when an output file could not be written.\n");
}

} // namespace

int main(int argc, char** argv)
{
    using namespace attnviz::cli;
    attnviz::lesson::keepFreedMemoryForReuse();
    // Ctrl-C, SIGTERM or SIGHUP part-way through a write leave no partial file behind.
    attnviz::io::removeUnfinishedOutputOnSignals();
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        // One sentence, as for every bad command line; the usage is one --help away.
        std::string names;
        for (const Command& c : commands())
            names += (names.empty() ? "" : ", ") + std::string(c.name);
        std::fprintf(stderr,
                     "attnviz-cli: no command given; expected %s (see attnviz-cli --help)\n",
                     names.c_str());
        return kExitBadInput;
    }
    const std::string& name = args.front();
    if (name == "-h" || name == "--help") {
        printUsage(stdout);
        return kExitOk;
    }
    if (name == "--version") {
        std::cout << "attnviz-cli " ATTNVIZ_VERSION "\n";
        return kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const Command& c : commands())
        if (c.name == name)
            return c.run(rest);
    return runGuarded("", [&]() -> int {
        std::string names;
        for (const Command& c : commands())
            names += (names.empty() ? "" : ", ") + std::string(c.name);
        throw std::invalid_argument("unknown command '" + attnviz::io::printable(name, 60) +
                                    "'; expected " + names + " (see attnviz-cli --help)");
    });
}
