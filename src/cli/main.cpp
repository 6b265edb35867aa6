// attnviz-cli: the engine without a window, for scripts, tests and headless exports.
#include "cli/exit_codes.h"
#include "cli/export_command.h"
#include "cli/mha_command.h"
#include "cli/trace_command.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

const char* const kUsage = R"(Usage: attnviz-cli COMMAND [ARGS...]

Multi-head attention, step by step, without a window.

Commands:
  mha CASE.safetensors [--dump OUT.safetensors]
                 run one multi-head attention module on a case file and write every
                 intermediate (q_proj ... weights ... output)
  trace --model DIR --text "..." [--target "..."] --dump OUT.safetensors
                 run a whole Transformer model (a folder, or a bundled demo: reverse,
                 genesis) and write every activation, named layer{L}.{block}.{step}
  export (--model DIR --text "..." | --case FILE) --format png|svg|pdf|csv|npy|... --out DIR
                 heatmaps, matrices, traces and handouts without a display

Options:
  -h, --help     show this help (COMMAND --help shows a command's own)
  --version      show the version

Exit status: 0 on success, 2 on bad arguments or bad input (one sentence on stderr, nothing
written), 1 when an output file could not be written.
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace attnviz::cli;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << kUsage;
        return kExitBadInput;
    }
    const std::string& command = args.front();
    if (command == "-h" || command == "--help") {
        std::cout << kUsage;
        return kExitOk;
    }
    if (command == "--version") {
        std::cout << "attnviz-cli " ATTNVIZ_VERSION "\n";
        return kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "mha")
        return runMhaCommand(rest);
    if (command == "trace")
        return runTraceCommand(rest);
    if (command == "export")
        return runExportCommand(rest, argv[0]);
    std::cerr << "attnviz-cli: unknown command '" << command
              << "'; expected mha, trace or export (see attnviz-cli --help)\n";
    return kExitBadInput;
}
