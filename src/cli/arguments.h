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

/// One option of a command: the table a command's parser and its `--help` are both made from,
/// so an option cannot be accepted without being documented, or documented without being
/// accepted.
struct OptionSpec {
    std::string names; ///< "--colour-map" or "--colour-map,--cmap" (the first is its key)
    std::string value; ///< "NAME" as --help shows it; empty for a switch
    std::string help; ///< one line, or several separated by \n
    bool repeatable = false; ///< may be given more than once (each value is kept)
    bool mayBeEmpty = false; ///< texts: "" is a value; a file, folder or number is not
};

/// A command's command line: what --help prints around the option table, and the table.
struct CommandSpec {
    std::string name; ///< "export"
    std::string usage; ///< the synopsis lines, "Usage: attnviz-cli export ..."
    std::string description; ///< paragraphs before the options
    std::vector<OptionSpec> options;
    std::string epilogue; ///< paragraphs after them (exit status)
};

/// The --help text of a command, from its spec.
std::string helpText(const CommandSpec& spec);

/// The options given to one command, keyed by each option's first name.
struct Arguments {
    std::map<std::string, std::vector<std::string>> values;
    std::set<std::string> flags;
    std::vector<std::string> positional;

    /// The value of a non-repeatable option.
    std::optional<std::string> value(const std::string& option) const;
    /// Every value of a repeatable option, in the order given.
    std::vector<std::string> all(const std::string& option) const;
    /// The value of a required option; UsageError when it is missing.
    std::string required(const std::string& option, const std::string& command) const;
    /// An integer option within [low, high], or `fallback` when absent.
    int integer(const std::string& option, int fallback, int low, int high) const;
    /// A finite number, or nullopt when absent.
    std::optional<double> number(const std::string& option) const;
    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
};

/// Parses `args` (CLI11) against `spec`: `--name value` and `--name=value`, switches, and
/// positional arguments. A repeated non-repeatable option, an option without its value, an empty
/// value where a text is not expected, or an unknown option is a UsageError of one sentence.
Arguments parseArguments(const std::vector<std::string>& args, const CommandSpec& spec);

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
/// trace's --ablate, as its option table holds it.
OptionSpec modelAblateOption();

/// Attention block names (self, masked_self, cross) or "all".
std::vector<engine::Block> blockList(const std::optional<std::string>& text);
/// Attention step names or "all", each once however often it is named; nullopt gives
/// `fallback`.
std::vector<engine::AttentionStep> stepList(const std::optional<std::string>& text,
                                            std::vector<engine::AttentionStep> fallback);

/// --max-memory: "2G", "512M", "1.5GB", a number of bytes; nullopt when absent. UsageError for
/// anything else.
std::optional<std::uint64_t> maxMemory(const Arguments& arguments);
/// Options several commands share, as their tables hold them.
OptionSpec maxMemoryOption();
OptionSpec threadsOption();

/// "q_proj, k_proj, …, output" from the engine's step table, for help texts.
std::string stepNames();
/// "self, masked_self or cross".
std::string blockNames();

} // namespace attnviz::cli
