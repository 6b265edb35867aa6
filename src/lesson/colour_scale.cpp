#include "lesson/colour_scale.h"

#include "engine/input_error.h"
#include "lesson/step_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace attnviz::lesson {
namespace {

// The smallest positive finite value of the maps, or nullopt.
std::optional<double> smallestPositive(const std::vector<Heatmap>& maps)
{
    std::optional<double> low;
    for (const Heatmap& m : maps) {
        const std::size_t n =
            static_cast<std::size_t>(m.rows()) * static_cast<std::size_t>(m.cols());
        for (std::size_t i = 0; i < n; ++i) {
            const double v = m.matrix.values[i];
            if (v > 0 && std::isfinite(v) && (!low || v < *low))
                low = v;
        }
    }
    return low;
}

// The shortest text that reads back as the same double: ends one float apart must not both read
// "1", and 0.9999999999999999 must not come back as 0.99999999999999989.
std::string exactly(double v)
{
    char text[32];
    const auto written = std::to_chars(std::begin(text), std::end(text), v);
    return std::string(text, written.ptr);
}

} // namespace

std::optional<std::string> colourRangeProblem(double low, double high)
{
    const std::string range = "The colour range " + exactly(low) + " to " + exactly(high);
    if (!std::isfinite(low) || !std::isfinite(high))
        return range + " is not two finite numbers; give --vmin and --vmax as numbers.";
    if (!(low < high))
        return range + " is empty; --vmin must be below --vmax.";
    const double width = high - low;
    if (!std::isfinite(width))
        return range + " is wider than a number can hold; narrow --vmin and --vmax.";
    if (width < std::ldexp(std::max(std::abs(low), std::abs(high)), -24))
        return range + " is narrower than a float can tell apart (its width must be at least " +
            formatNumber(std::ldexp(std::max(std::abs(low), std::abs(high)), -24)) +
            "); widen --vmin and --vmax.";
    return std::nullopt;
}

std::pair<double, double> ScaleChoice::rangeOf(const std::vector<Heatmap>& maps) const
{
    std::pair<double, double> range = colourRange(maps);
    if (stretch != Stretch::Linear)
        for (const Heatmap& m : maps)
            if (m.scale == ColourScale::Diverging)
                throw engine::InputError(
                    "A " + stretchName(stretch, gamma) +
                    " colour scale is for steps whose values are never negative, such as the "
                    "weights; " +
                    (m.caption.empty() ? "a map" : m.caption) +
                    " is signed, so export it with a linear scale.");
    if (stretch == Stretch::Log) {
        // Six decades below the top: softmax weights underflow towards 1e-30 on long texts, and
        // a bar over thirty decades would put the whole pattern in its top fifth.
        const double top = high.value_or(range.second);
        range.first = std::max(smallestPositive(maps).value_or(top * 1e-6), top * 1e-6);
    }
    if (low)
        range.first = *low;
    if (high)
        range.second = *high;
    if (auto problem = colourRangeProblem(range.first, range.second))
        throw engine::InputError(std::move(*problem));
    if (stretch == Stretch::Log && !(range.first > 0))
        throw engine::InputError("A log colour scale needs a range above 0; --vmin is " +
                                 formatNumber(range.first) + ".");
    return range;
}

std::string ScaleChoice::describe(std::pair<double, double> range, const std::string& step) const
{
    const std::string shared = mode == RangeMode::Fixed ? "fixed by the user"
        : mode == RangeMode::PerMap                     ? "set by this map alone"
                                    : "shared by every " + step + " map of the export";
    return "range " + formatNumber(range.first) + " to " + formatNumber(range.second) + ", " +
        shared;
}

double barPosition(double value, std::pair<double, double> range, ColourScale scale,
                   Stretch stretch, double gamma)
{
    if (std::isnan(value))
        return value;
    const auto [low, high] = range;
    double f = 0.5;
    if (scale == ColourScale::Sequential && stretch == Stretch::Log) {
        if (value <= 0)
            return 0;
        f = (std::log(value) - std::log(low)) / (std::log(high) - std::log(low));
    } else if (high > low) {
        f = (value - low) / (high - low);
        if (scale == ColourScale::Sequential && stretch == Stretch::Power && f > 0)
            f = std::pow(f, gamma);
    }
    return std::isnan(f) ? 0.5 : std::clamp(f, 0.0, 1.0);
}

double valueAtBarPosition(double position, std::pair<double, double> range, ColourScale scale,
                          Stretch stretch, double gamma)
{
    const auto [low, high] = range;
    if (scale == ColourScale::Sequential && stretch == Stretch::Log)
        return std::exp(std::log(low) + position * (std::log(high) - std::log(low)));
    if (scale == ColourScale::Sequential && stretch == Stretch::Power)
        position = std::pow(std::max(position, 0.0), 1.0 / gamma);
    return low + position * (high - low);
}

std::string stretchName(Stretch stretch, double gamma)
{
    switch (stretch) {
    case Stretch::Log:
        return "log";
    case Stretch::Power:
        return "power " + formatNumber(gamma);
    case Stretch::Linear:
        break;
    }
    return "linear";
}

} // namespace attnviz::lesson
