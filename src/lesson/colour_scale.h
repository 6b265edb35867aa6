#pragma once

#include "lesson/heatmap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::lesson {

/// Which maps share a colour range: every map of a step in the set (the default, so heads can be
/// compared), each map on its own, or the user's fixed range (the same colour bar whatever else
/// is exported).
enum class RangeMode { PerStep, PerMap, Fixed };

/// How a value's place in its range becomes a place on the colour map. Linear is matplotlib's
/// Normalize, Log its LogNorm, Power its PowerNorm(gamma): at 1,000 tokens most weights are
/// below 0.01 and a linear map shows one colour, where log or a gamma of 0.5 shows the pattern.
enum class Stretch { Linear, Log, Power };

/// The user's choice of colour scale for a set of maps (--range, --vmin, --vmax, --scale).
struct ScaleChoice {
    RangeMode mode = RangeMode::PerStep;
    std::optional<double> low; ///< --vmin: replaces the data's low end
    std::optional<double> high; ///< --vmax: replaces the data's high end
    Stretch stretch = Stretch::Linear;
    double gamma = 0.5; ///< Power only

    /// The range of `maps` under this choice: the data's (colourRange, or for Log the smallest
    /// positive value, at most six decades below the top) with --vmin / --vmax put in. Throws
    /// engine::InputError for a range that is empty, a log range that is not positive, or a log
    /// or power scale on a signed map (they are defined for values from 0 up).
    std::pair<double, double> rangeOf(const std::vector<Heatmap>& maps) const;
    /// The range and what sets it, for a file's metadata (the render layer adds the map and the
    /// stretch): "range 0 to 0.65, shared by every weights map of the export".
    std::string describe(std::pair<double, double> range, const std::string& step) const;
};

/// Why [low, high] cannot be a colour range, in one sentence, or nothing when it can: it must be
/// ordered, its width a finite number, and wide enough that a float tells its ends apart (at
/// least 2^-24 of its larger end's size, a float's resolution). A narrower range would make
/// every cell one colour and leave the colour bar no room for two different ticks.
std::optional<std::string> colourRangeProblem(double low, double high);

/// Where `value` sits on the colour bar, from 0 (bottom) to 1 (top), values beyond the range
/// clamped (≤ 0 on a log scale is the bottom); NaN for NaN. Signed (diverging) maps are linear.
double barPosition(double value, std::pair<double, double> range, ColourScale scale,
                   Stretch stretch, double gamma);
/// The value at a place on the colour bar: barPosition's inverse, for the bar's ticks.
double valueAtBarPosition(double position, std::pair<double, double> range, ColourScale scale,
                          Stretch stretch, double gamma);

/// "linear", "log", "power 0.5".
std::string stretchName(Stretch stretch, double gamma);

} // namespace attnviz::lesson
