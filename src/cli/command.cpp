#include "cli/command.h"

#include <cstdio>
#include <new>

namespace attnviz::cli {
namespace {

// The last guard of the one-line contract: names inside messages are already escaped
// (io::printable); this only makes sure no control character reaches the terminal.
std::string oneLine(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            out += hex;
        } else {
            out += c;
        }
    }
    return out;
}

int report(std::string_view name, std::string_view message, int status)
{
    const std::string prefix = name.empty() ? "attnviz-cli" : "attnviz-cli " + std::string(name);
    std::fprintf(stderr, "%s: %s\n", prefix.c_str(), oneLine(message).c_str());
    return status;
}

} // namespace

const std::vector<Command>& commands()
{
    static const std::vector<Command> table{
        {"mha", "mha CASE.safetensors [--dump OUT.safetensors]",
         "run one multi-head attention module on a case file and write every intermediate",
         runMhaCommand},
        {"trace", "trace --model DIR --text \"...\" [--target \"...\"] --dump OUT.safetensors",
         "run a whole Transformer model (a folder, or a bundled demo) and write every activation",
         runTraceCommand},
        {"export", "export (--model DIR --text \"...\" | --case FILE) --format F --out DIR",
         "heatmaps, matrices, traces and handouts without a display", runExportCommand},
        {"importance", "importance --model DIR [--text \"...\"]",
         "switch each attention head off in turn and rank the heads by what that costs",
         runImportanceCommand},
        {"rollout",
         "rollout --model DIR --text \"...\" [--head-fusion F] [--discard-ratio R] --out FILE.npy",
         "attention rollout of the first attention stack, as an N x N .npy", runRolloutCommand},
        {"picture", "picture --model DIR --image FILE [--layer L] [--head H] --out FILE.png",
         "a Vision Transformer's attention drawn over its picture (PNG, SVG or PDF)",
         runPictureCommand},
    };
    return table;
}

int runGuarded(std::string_view name, const std::function<int()>& work)
{
    try {
        return work();
    } catch (const WriteFailed& e) {
        return report(name, e.what(), kExitWriteFailed);
    } catch (const std::bad_alloc&) {
        return report(name, "there was not enough memory for this request; nothing was written",
                      kExitBadInput);
    } catch (const std::exception& e) {
        return report(name, e.what(), kExitBadInput);
    } catch (...) {
        return report(name, "the command failed for an unknown reason; nothing was written",
                      kExitBadInput);
    }
}

} // namespace attnviz::cli
