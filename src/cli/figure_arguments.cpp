#include "cli/figure_arguments.h"

#include "io/file_error.h"
#include "render/colour_map.h"

#include <QFontDatabase>

#include <charconv>
#include <cmath>

namespace attnviz::cli {
namespace {

// One of `names` (the table of a choice), or a UsageError listing them.
template <typename T>
T choice(const Arguments& a, const std::string& option, T fallback,
         const std::vector<std::pair<std::string, T>>& names)
{
    const auto v = a.value(option);
    if (!v)
        return fallback;
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i].first == *v)
            return names[i].second;
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i].first;
    }
    throw UsageError(option + " is '" + io::printable(*v, 40) + "'; expected " + list);
}

std::optional<int> tokenIndex(const std::string& text)
{
    if (text.empty())
        return std::nullopt;
    int n = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0)
        return -1;
    return n;
}

} // namespace

std::vector<OptionSpec> figureOptionSpecs()
{
    std::string maps;
    for (const render::ColourMap& m : render::colourMaps())
        maps += "\n  " + std::string(m.name) + std::string(10 - m.name.size(), ' ') +
            std::string(m.description);
    std::string arrangements;
    for (const render::ArrangementInfo& a : render::figureArrangements())
        arrangements += "\n  " + std::string(a.name) + std::string(7 - a.name.size(), ' ') +
            std::string(a.help);
    return {
        {"--figure", "HOW", "png, svg and pdf files:" + arrangements},
        {"--colour-map,--cmap", "NAME",
         "the colour map of the non-negative steps (weights), or of the signed ones\n"
         "when NAME is a diverging map; give it twice for both. One of:" +
             maps,
         true},
        {"--range", "MODE",
         "which maps share a colour range: step (every map of a step in the export, the\n"
         "default), map (each its own) or fixed (--vmin and --vmax; the same colour bar\n"
         "whatever else is exported). Files say which in their metadata"},
        {"--vmin", "X", "the bottom of the colour range (with --vmax: --range fixed)"},
        {"--vmax", "X", "the top of the colour range"},
        {"--scale", "S",
         "linear (default), log, or power:G (values^G, e.g. power:0.5) for the\n"
         "non-negative steps: on long texts most weights are tiny and a linear map shows\n"
         "one colour. log starts at the smallest weight, at most six decades down"},
        {"--labels", "WHICH",
         "auto (as many token labels as fit at the font size), all (every one; the export\n"
         "stops if they do not fit) or none"},
        {"--font-size", "PT", "text size in points, 4 to 72 (default 9.75)"},
        {"--font-family", "NAME",
         "sans (default), serif, mono, latex (Computer Modern, as a LaTeX paper) or an\n"
         "installed family"},
        {"--title", "TEXT", "this title on every figure instead of its own", false, true},
        {"--no-title", "", "no title"},
        {"--no-frame", "", "no frame in the head's colour around the cells"},
        {"--no-space-marks", "", "draw spaces in tokens as spaces, not as ␣"},
        {"--transparent", "", "no white background (PNG, SVG, PDF), for slides"},
        {"--tokens", "A:B",
         "only tokens A to B-1 on every token axis, as a Python slice (100:140, :20, 5:)"},
        {"--over-heads", "HOW",
         "mean or max: one map for the selected heads of each layer and block"},
        {"--over-layers", "HOW", "mean or max: one map for the selected layers"},
    };
}

FigureArguments figureArguments(const Arguments& a)
{
    FigureArguments out;
    render::FigureOptions& f = out.figure;
    std::vector<std::pair<std::string, render::FigureArrangement>> arrangements;
    for (const render::ArrangementInfo& info : render::figureArrangements())
        arrangements.emplace_back(info.name, info.arrangement);
    out.arrangement = choice(a, "--figure", render::FigureArrangement::Each, arrangements);
    for (const std::string& name : a.all("--colour-map")) {
        const render::ColourMap* map = render::colourMap(name);
        if (!map)
            throw UsageError("--colour-map is '" + io::printable(name, 40) + "'; expected " +
                             render::colourMapList());
        (map->diverging ? f.colouring.diverging : f.colouring.sequential) = map;
    }
    out.scale.low = a.number("--vmin");
    out.scale.high = a.number("--vmax");
    out.scale.mode = choice<lesson::RangeMode>(
        a, "--range",
        out.scale.low && out.scale.high ? lesson::RangeMode::Fixed : lesson::RangeMode::PerStep,
        {{"step", lesson::RangeMode::PerStep},
         {"map", lesson::RangeMode::PerMap},
         {"fixed", lesson::RangeMode::Fixed}});
    if (out.scale.mode == lesson::RangeMode::Fixed && !(out.scale.low && out.scale.high))
        throw UsageError("--range fixed needs both --vmin and --vmax");
    if (out.scale.low && out.scale.high)
        if (auto problem = lesson::colourRangeProblem(*out.scale.low, *out.scale.high))
            throw UsageError(*problem);
    if (const auto s = a.value("--scale")) {
        if (*s == "linear") {
        } else if (*s == "log") {
            out.scale.stretch = lesson::Stretch::Log;
        } else if (s->starts_with("power")) {
            out.scale.stretch = lesson::Stretch::Power;
            if (s->size() > 5) {
                double g = 0;
                const char* first = s->data() + 6;
                const auto [end, ec] = std::from_chars(first, s->data() + s->size(), g);
                if ((*s)[5] != ':' || ec != std::errc() || end != s->data() + s->size() ||
                    !(g > 0 && g <= 10))
                    throw UsageError("--scale is '" + io::printable(*s, 40) +
                                     "'; expected power:G with G above 0 and at most 10");
                out.scale.gamma = g;
            }
        } else {
            throw UsageError("--scale is '" + io::printable(*s, 40) +
                             "'; expected linear, log or power:G (such as power:0.5)");
        }
    }
    f.colouring.stretch = out.scale.stretch;
    f.colouring.gamma = out.scale.gamma;
    f.labels = choice<render::LabelMode>(a, "--labels", render::LabelMode::Auto,
                                         {{"auto", render::LabelMode::Auto},
                                          {"all", render::LabelMode::All},
                                          {"none", render::LabelMode::None}});
    if (const auto size = a.number("--font-size")) {
        if (*size < 4 || *size > 72)
            throw UsageError("--font-size is " + *a.value("--font-size") +
                             "; expected points from 4 to 72");
        f.fontPoints = *size;
    }
    if (const auto family = a.value("--font-family")) {
        if (render::installedFontFamily(QString::fromStdString(*family)).isEmpty())
            throw UsageError("--font-family is '" + io::printable(*family, 60) +
                             "', which is not installed; expected sans, serif, mono, latex or an "
                             "installed family (fc-list : family lists them)");
        f.fontFamily = QString::fromStdString(*family);
    }
    if (a.has("--no-title") && a.value("--title"))
        throw UsageError("--title and --no-title contradict each other; give one");
    if (a.has("--no-title"))
        out.title = "";
    else if (const auto title = a.value("--title"))
        out.title = *title;
    f.headFrame = !a.has("--no-frame");
    f.spaceMarks = !a.has("--no-space-marks");
    f.transparent = a.has("--transparent");
    return out;
}

void selectionArguments(const Arguments& a, lesson::ExportSelection& selection)
{
    if (const auto tokens = a.value("--tokens")) {
        const auto colon = tokens->find(':');
        const auto bad = [&] {
            return UsageError("--tokens is '" + io::printable(*tokens, 40) +
                              "'; expected A:B, the tokens from A up to (not including) B, such "
                              "as 100:140, :20 or 5:");
        };
        if (colon == std::string::npos)
            throw bad();
        const std::optional<int> first = tokenIndex(tokens->substr(0, colon));
        const std::optional<int> end = tokenIndex(tokens->substr(colon + 1));
        if ((first && *first < 0) || (end && *end < 0))
            throw bad();
        if (first && end && *end <= *first)
            throw UsageError("--tokens " + io::printable(*tokens, 40) +
                             " is empty; B must be above A");
        selection.tokens = lesson::TokenRange{first.value_or(0), end};
    }
    const std::vector<std::pair<std::string, lesson::Combine>> how{{"mean", lesson::Combine::Mean},
                                                                   {"max", lesson::Combine::Max}};
    selection.overHeads = choice(a, "--over-heads", lesson::Combine::None, how);
    selection.overLayers = choice(a, "--over-layers", lesson::Combine::None, how);
}

} // namespace attnviz::cli
