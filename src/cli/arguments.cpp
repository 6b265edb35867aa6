#include "cli/arguments.h"

namespace attnviz::cli {

std::optional<std::string> Arguments::value(const std::string& option) const
{
    const auto it = values.find(option);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string Arguments::required(const std::string& option, const std::string& command) const
{
    const auto v = value(option);
    if (!v)
        throw UsageError(command + " needs " + option + "; see attnviz-cli " + command + " --help");
    return *v;
}

int Arguments::positiveInteger(const std::string& option, int fallback) const
{
    const auto v = value(option);
    if (!v)
        return fallback;
    try {
        std::size_t used = 0;
        const int n = std::stoi(*v, &used);
        if (used == v->size() && n >= 1)
            return n;
    } catch (const std::exception&) {
    }
    throw UsageError(option + " is '" + *v + "'; expected a positive integer");
}

Arguments parseArguments(const std::vector<std::string>& args, const std::string& command,
                         const std::set<std::string>& valueOptions, const std::set<std::string>& flagOptions)
{
    Arguments parsed;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (valueOptions.count(a)) {
            if (i + 1 >= args.size())
                throw UsageError(a + " needs a value");
            if (!parsed.values.emplace(a, args[++i]).second)
                throw UsageError(a + " is given twice");
        } else if (flagOptions.count(a)) {
            parsed.flags.insert(a);
        } else if (a.starts_with("-") && a != "-") {
            throw UsageError("unknown option '" + a + "'; see attnviz-cli " + command + " --help");
        } else {
            parsed.positional.push_back(a);
        }
    }
    return parsed;
}

bool wantsHelp(const std::vector<std::string>& args)
{
    for (const std::string& a : args)
        if (a == "-h" || a == "--help")
            return true;
    return false;
}

} // namespace attnviz::cli
