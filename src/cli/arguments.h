#pragma once

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
    /// A positive integer option, or `fallback` when absent.
    int positiveInteger(const std::string& option, int fallback) const;
    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
};

/// Parses `args` for `command`, accepting only the listed options; a repeated option, an option
/// without its value or an unknown one is a UsageError.
Arguments parseArguments(const std::vector<std::string>& args, const std::string& command,
                         const std::set<std::string>& valueOptions, const std::set<std::string>& flagOptions);

/// True when the arguments ask for help.
bool wantsHelp(const std::vector<std::string>& args);

} // namespace attnviz::cli
