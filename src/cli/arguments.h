#pragma once

#include "engine/attention_trace.h"
#include "engine/model_config.h"
#include "engine/model_weights.h"
#include "engine/transformer_model.h"
#include "lesson/index_set.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnviz::cli {

/// A command line the command cannot run with; the message is one sentence.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// `--name value` options, `--flag` switches and positional arguments of one command.
struct Arguments {
    std::map<std::string, std::string> values;
    std::set<std::string> flags;
    std::vector<std::string> positional;

    std::optional<std::string> value(const std::string& option) const;
    /// The value of a required option; UsageError when it is missing.
    std::string required(const std::string& option, const std::string& command) const;
    /// An integer option within [low, high], or `fallback` when absent.
    int integer(const std::string& option, int fallback, int low, int high) const;
    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
};

/// Parses `args` for `command`, accepting only the listed options; a repeated option, an option
/// without its value or an unknown one is a UsageError.
Arguments parseArguments(const std::vector<std::string>& args, const std::string& command,
                         const std::set<std::string>& valueOptions,
                         const std::set<std::string>& flagOptions);

/// True when the arguments ask for help.
bool wantsHelp(const std::vector<std::string>& args);

/// "0,2", "0-3", "1-2,5" or "all" (nullopt: all): kept as ranges, never expanded, so
/// "0-2000000000" costs nothing until it is checked against the real count.
lesson::IndexSet indexList(const std::optional<std::string>& text, const std::string& option);
/// mha's --ablate: head numbers and ranges ("0,2", "1-3", "all"), checked against `numHeads`
/// without expanding them; UsageError names the first head the module does not have.
std::vector<int> headAblation(const std::string& text, int numHeads);
/// trace's --ablate: "layer:head" items ("1:0,1:3"), a range of heads ("1:0-3"), and where a
/// layer has several attention blocks (encoder-decoder models) the block named after the layer
/// ("1.cross:0"). Checked against the model; UsageError names what it does not have.
engine::Ablation modelAblation(const std::string& text, const engine::ModelConfig& config);
/// Help lines for --ablate.
inline constexpr const char* kAblateHelp =
    "  --ablate L:H   switch heads off (layer:head, e.g. 1:0,1:3 or 1:0-3; 1.cross:0 names the\n"
    "                 block where a layer has several): their context is computed and kept, their\n"
    "                 columns of concat are zero, and everything after follows\n";

/// Attention block names (self, masked_self, cross) or "all".
std::vector<engine::Block> blockList(const std::optional<std::string>& text);
/// Attention step names or "all", each once however often it is named; nullopt gives
/// `fallback`.
std::vector<engine::AttentionStep> stepList(const std::optional<std::string>& text,
                                            std::vector<engine::AttentionStep> fallback);

/// --max-memory: "2G", "512M", "1.5GB", a number of bytes; nullopt when absent. UsageError for
/// anything else.
std::optional<std::uint64_t> maxMemory(const Arguments& arguments);
/// The help line every computing command shows for it.
inline constexpr const char* kMaxMemoryHelp =
    "  --max-memory S refuse, before computing, a run needing more than S (e.g. 2G, 512M):\n"
    "                 opening the model, its weights with the trace, the images in flight;\n"
    "                 80 % of the memory available now is the limit anyway\n";

/// "q_proj, k_proj, …, output" from the engine's step table, for help texts.
std::string stepNames();
/// "self, masked_self or cross".
std::string blockNames();

} // namespace attnviz::cli
