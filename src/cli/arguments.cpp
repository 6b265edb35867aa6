#include "cli/arguments.h"

#include "lesson/memory_budget.h"

#include "engine/thread_count.h"
#include "io/file_error.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace attnviz::cli {
namespace {

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> items;
    std::string current;
    for (const char c : text + ",") {
        if (c == ',') {
            if (!current.empty())
                items.push_back(current);
            current.clear();
        } else if (c != ' ') {
            current += c;
        }
    }
    return items;
}

// A non-negative decimal number that fits an int, else nullopt.
std::optional<std::int64_t> index(const std::string& s)
{
    std::int64_t n = -1;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 0 ||
        n > std::numeric_limits<int>::max())
        return std::nullopt;
    return n;
}

// "3" or "0-3" as an inclusive range of non-negative ints, else nullopt.
std::optional<std::pair<std::int64_t, std::int64_t>> range(const std::string& s)
{
    const auto dash = s.find('-', 1);
    const auto from = index(s.substr(0, dash));
    const auto to = dash == std::string::npos ? from : index(s.substr(dash + 1));
    if (!from || !to || *to < *from)
        return std::nullopt;
    return std::pair(*from, *to);
}

// "--colour-map,--cmap" → {"--colour-map", "--cmap"}.
std::vector<std::string> splitNames(const std::string& names)
{
    std::vector<std::string> out;
    std::string current;
    for (const char c : names + ",") {
        if (c == ',') {
            out.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    return out;
}

std::string headsNamed(int numHeads)
{
    return numHeads == 1 ? "only head 0" : "heads 0–" + std::to_string(numHeads - 1);
}

} // namespace

std::optional<std::string> Arguments::value(const std::string& option) const
{
    const auto it = values.find(option);
    return it == values.end() || it->second.empty()
        ? std::nullopt
        : std::optional<std::string>(it->second.front());
}

std::vector<std::string> Arguments::all(const std::string& option) const
{
    const auto it = values.find(option);
    return it == values.end() ? std::vector<std::string>{} : it->second;
}

std::string Arguments::required(const std::string& option, const std::string& command) const
{
    const auto v = value(option);
    if (!v)
        throw UsageError(command + " needs " + option + "; see attnviz-cli " + command + " --help");
    return *v;
}

int Arguments::integer(const std::string& option, int fallback, int low, int high) const
{
    const auto v = value(option);
    if (!v)
        return fallback;
    long long n = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || end != v->data() + v->size() || n < low || n > high)
        throw UsageError(option + " is '" + io::printable(*v, 40) + "'; expected an integer from " +
                         std::to_string(low) + " to " + std::to_string(high));
    return static_cast<int>(n);
}

std::optional<double> Arguments::number(const std::string& option) const
{
    const auto v = value(option);
    if (!v)
        return std::nullopt;
    double x = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(x))
        throw UsageError(option + " is '" + io::printable(*v, 40) + "'; expected a finite number");
    return x;
}

std::string helpText(const CommandSpec& spec)
{
    std::string out = spec.usage + "\n\n" + spec.description + "\n\nOptions:\n";
    constexpr std::size_t kColumn = 19;
    const auto add = [&](std::string left, const std::string& help) {
        left = "  " + left;
        out += left;
        if (left.size() + 1 > kColumn)
            out += "\n" + std::string(kColumn, ' ');
        else
            out += std::string(kColumn - left.size(), ' ');
        // A line longer than the 100 columns of the rest (a list of step names) wraps at a space.
        std::string line;
        const auto emit = [&](std::string text) {
            while (kColumn + text.size() > 100) {
                const auto space = text.rfind(' ', 100 - kColumn);
                if (space == std::string::npos || space == 0)
                    break;
                out += text.substr(0, space) + "\n" + std::string(kColumn, ' ');
                text.erase(0, space + 1);
            }
            out += text;
        };
        for (const char c : help) {
            if (c == '\n') {
                emit(line);
                line.clear();
                out += "\n" + std::string(kColumn, ' ');
            } else {
                line += c;
            }
        }
        emit(line);
        out += "\n";
    };
    for (const OptionSpec& o : spec.options) {
        std::string names;
        for (const std::string& n : splitNames(o.names))
            names += (names.empty() ? "" : ", ") + n;
        add(names + (o.value.empty() ? "" : " " + o.value), o.help);
    }
    add("-h, --help", "show this help");
    return out + (spec.epilogue.empty() ? "" : "\n" + spec.epilogue + "\n");
}

Arguments parseArguments(const std::vector<std::string>& args, const CommandSpec& spec)
{
    // The one thing a user cannot see is an option swallowing nothing: a value option as the
    // last argument. CLI11 would say "1 required missing"; the sentence here names the option.
    if (!args.empty())
        for (const OptionSpec& o : spec.options)
            if (!o.value.empty())
                for (const std::string& n : splitNames(o.names))
                    if (args.back() == n)
                        throw UsageError(n + " needs a value");
    CLI::App app;
    app.set_help_flag(); // --help is answered before parsing, from the same table
    app.allow_extras(true); // unknown options and positionals are sorted out below
    // CLI11 drops an empty value from an option's results; a text may be empty, so an empty
    // argument travels as a marker no sensible argument is (0xff and 0xfe are never UTF-8).
    const std::string emptyMarker = "\xff\xfe(empty)\xfe\xff";
    std::vector<std::string> argv;
    argv.reserve(args.size());
    for (const std::string& a : args)
        argv.push_back(a.empty() ? emptyMarker : a);
    std::vector<std::pair<const OptionSpec*, CLI::Option*>> options;
    for (const OptionSpec& o : spec.options) {
        CLI::Option* option = o.value.empty() ? app.add_flag(o.names) : app.add_option(o.names);
        option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        options.emplace_back(&o, option);
    }
    try {
        std::vector<std::string> reversed(argv.rbegin(), argv.rend());
        app.parse(reversed); // CLI11 takes its vector back to front
    } catch (const CLI::ParseError& e) {
        throw UsageError(std::string(e.what()) + "; see attnviz-cli " + spec.name + " --help");
    }
    Arguments parsed;
    for (const auto& [o, option] : options) {
        if (option->count() == 0)
            continue;
        const std::string key = splitNames(o->names).front();
        if (o->value.empty()) {
            parsed.flags.insert(key);
            continue;
        }
        if (option->count() > 1 && !o->repeatable)
            throw UsageError(key + " is given twice");
        std::vector<std::string>& values = parsed.values[key];
        for (const std::string& v : option->results()) {
            if (v == emptyMarker && !o->mayBeEmpty)
                throw UsageError(key + " is empty; expected a value");
            values.push_back(v == emptyMarker ? std::string() : v);
        }
    }
    for (const std::string& a : app.remaining()) {
        if (a.starts_with("-") && a != "-")
            throw UsageError("unknown option '" + io::printable(a, 60) + "'; see attnviz-cli " +
                             spec.name + " --help");
        parsed.positional.push_back(a == emptyMarker ? std::string() : a);
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

OptionSpec maxMemoryOption()
{
    return {"--max-memory", "S",
            "refuse, before computing, a run needing more than S (e.g. 2G, 512M):\n"
            "opening the model, its weights with the trace, the images in flight;\n"
            "80 % of the memory available now is the limit anyway"};
}

OptionSpec threadsOption()
{
    return {"--threads", "N",
            "threads for the computation, 1 to " + std::to_string(engine::kMaxThreads) +
                " (default: all cores)"};
}

OptionSpec modelAblateOption()
{
    return {"--ablate", "L:H",
            "switch heads off (layer:head, e.g. 1:0,1:3 or 1:0-3; 1.cross:0 names the\n"
            "block where a layer has several): their context is computed and kept, their\n"
            "columns of concat are zero, and everything after follows"};
}

lesson::IndexSet indexList(const std::optional<std::string>& text, const std::string& option)
{
    lesson::IndexSet set;
    if (!text || *text == "all")
        return set;
    const std::vector<std::string> items = splitList(*text);
    if (items.empty())
        throw UsageError(option + " is empty; expected numbers from 0, ranges such as 0-3, or all");
    for (const std::string& item : items) {
        const auto bad = [&] {
            return UsageError(option + " has '" + io::printable(item, 40) +
                              "'; expected numbers from 0, ranges such as 0-3, or all");
        };
        const auto dash = item.find('-', 1);
        const auto from = index(item.substr(0, dash));
        const auto to = dash == std::string::npos ? from : index(item.substr(dash + 1));
        if (!from || !to)
            throw bad();
        if (*to < *from)
            throw UsageError(option + " has the empty range '" + io::printable(item, 40) + "'");
        set.add(*from, *to);
    }
    return set;
}

std::vector<engine::Block> blockList(const std::optional<std::string>& text)
{
    std::vector<engine::Block> out;
    if (!text || *text == "all")
        return out;
    for (const std::string& item : splitList(*text)) {
        const auto block = engine::blockFromName(item);
        if (!block || !engine::isAttention(*block))
            throw UsageError("--blocks has '" + io::printable(item, 40) + "'; expected " +
                             blockNames() + " or all");
        out.push_back(*block);
    }
    return out;
}

std::vector<engine::AttentionStep> stepList(const std::optional<std::string>& text,
                                            std::vector<engine::AttentionStep> fallback)
{
    if (!text)
        return fallback;
    std::vector<engine::AttentionStep> out;
    if (*text == "all") {
        for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
            out.push_back(info.step);
        return out;
    }
    for (const std::string& item : splitList(*text)) {
        const auto step = engine::stepFromName(item);
        if (!step)
            throw UsageError("--steps has '" + io::printable(item, 40) + "'; expected " +
                             stepNames() + " or all");
        // A step named twice is exported once: its files would have the same names.
        if (std::find(out.begin(), out.end(), *step) == out.end())
            out.push_back(*step);
    }
    if (out.empty())
        throw UsageError("--steps is empty; expected " + stepNames() + " or all");
    return out;
}

std::string stepNames()
{
    std::string out;
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        out += (out.empty() ? "" : ", ") + std::string(info.name);
    return out;
}

std::string blockNames()
{
    std::string out;
    const std::size_t n = std::size(engine::kAttentionBlocks);
    for (std::size_t i = 0; i < n; ++i)
        out += (i == 0           ? ""
                    : i + 1 == n ? " or "
                                 : ", ") +
            std::string(engine::blockName(engine::kAttentionBlocks[i]));
    return out;
}

std::optional<std::uint64_t> maxMemory(const Arguments& arguments)
{
    const std::optional<std::string> text = arguments.value("--max-memory");
    if (!text)
        return std::nullopt;
    const std::optional<std::uint64_t> bytes = lesson::parseByteSize(*text);
    if (!bytes)
        throw UsageError("--max-memory is '" + io::printable(*text, 40) +
                         "'; expected a size such as 2G, 512M or 1.5GB");
    return bytes;
}

std::vector<int> headAblation(const std::string& text, int numHeads)
{
    const lesson::IndexSet heads = indexList(text, "--ablate"); // "all": every head
    if (const auto missing = heads.firstAtOrAbove(numHeads))
        throw UsageError("--ablate names head " + std::to_string(*missing) + "; the module has " +
                         headsNamed(numHeads));
    return heads.within(numHeads);
}

engine::Ablation modelAblation(const std::string& text, const engine::ModelConfig& c)
{
    const std::vector<std::string> items = splitList(text);
    if (items.empty())
        throw UsageError("--ablate is empty; expected layer:head pairs such as 1:0,1:3");
    engine::Ablation ablation;
    for (const std::string& item : items) {
        const auto bad = [&](const std::string& why) {
            return UsageError("--ablate has '" + io::printable(item, 40) + "'; " + why);
        };
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            throw bad("expected layer:head, such as 1:0");
        const std::string where = item.substr(0, colon);
        const auto dot = where.find('.');
        const auto layer = index(where.substr(0, dot));
        const auto heads = range(item.substr(colon + 1));
        if (!layer || !heads)
            throw bad("expected layer:head with numbers from 0, such as 1:0 or 1:0-3");
        const std::vector<engine::Block> blocks =
            engine::attentionBlocksOfLayer(c, static_cast<int>(*layer));
        if (blocks.empty())
            throw bad("the model has layers 0–" +
                      std::to_string(std::max(c.encoderLayers, c.decoderLayers) - 1));
        std::string present;
        for (const engine::Block b : blocks)
            present += (present.empty() ? "" : ", ") + std::string(engine::blockName(b));
        engine::Block block = blocks.front();
        if (dot != std::string::npos) {
            const auto named = engine::blockFromName(where.substr(dot + 1));
            if (!named || std::find(blocks.begin(), blocks.end(), *named) == blocks.end())
                throw bad("layer " + std::to_string(*layer) + " has the attention blocks " +
                          present);
            block = *named;
        } else if (blocks.size() > 1) {
            throw bad("layer " + std::to_string(*layer) + " has several attention blocks (" +
                      present + "); name one, as in " + std::to_string(*layer) + "." +
                      engine::blockName(blocks.back()) + ":" + item.substr(colon + 1));
        }
        if (heads->second >= c.numHeads)
            throw bad("the model has " + headsNamed(c.numHeads));
        for (auto h = heads->first; h <= heads->second; ++h) {
            const engine::Ablation::Head head{static_cast<int>(*layer), block, static_cast<int>(h)};
            if (std::find(ablation.heads.begin(), ablation.heads.end(), head) ==
                ablation.heads.end())
                ablation.heads.push_back(head);
        }
    }
    return ablation;
}

} // namespace attnviz::cli
