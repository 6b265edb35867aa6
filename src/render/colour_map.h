#pragma once

#include "lesson/colour_scale.h"
#include "lesson/heatmap.h"

#include <QColor>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::render {

/// A colour map a figure can use: 256 levels from its published definition (colour_tables.inc,
/// written by tools/make_colour_tables.py from matplotlib's copy), for values that are never
/// negative or for signed values centred on zero. A new map is one row of colourMaps().
struct ColourMap {
    std::string_view name; ///< --colour-map value, as matplotlib spells it in lower case
    bool diverging; ///< for signed steps (scores, projections); otherwise for weights
    const std::array<QRgb, 256>* levels;
    std::string_view description; ///< one line for --help
};

/// Every colour map, sequential ones first; viridis and rdbu are the defaults.
const std::vector<ColourMap>& colourMaps();
/// The map of that name (case-insensitive), if any.
const ColourMap* colourMap(std::string_view name);
/// "viridis, magma, cividis, greys, rdbu or coolwarm".
std::string colourMapList();

/// How values become colours in one figure: the map for non-negative steps, the map for signed
/// steps, and the stretch of the non-negative ones. The screen uses the defaults.
struct Colouring {
    const ColourMap* sequential = &colourMaps().front();
    const ColourMap* diverging = colourMap("rdbu");
    lesson::Stretch stretch = lesson::Stretch::Linear;
    double gamma = 0.5;

    /// "viridis, log" — what a file's metadata says of its colours.
    std::string describe(lesson::ColourScale scale) const;
};

/// The colour of a value on a heatmap's scale: a value picks its level as matplotlib does
/// (⌊f · 256⌋ of its place f on the bar, the top of the range in the last), so a figure matches
/// an imshow of the same numbers, range, map and norm. NaN is magenta, a colour no map uses.
QRgb colourOf(double value, std::pair<double, double> range, lesson::ColourScale scale,
              const Colouring& colouring = {});

/// Blocked cells: a neutral grey neither map uses ("blocked is not a number").
QColor blockedColour();

/// One colour per head, the same everywhere (titles, frames, column bands, legends), so
/// "head 3" can be followed across steps. Okabe–Ito: distinguishable with the common
/// colour-vision deficiencies.
QColor headColour(int head);

} // namespace attnviz::render
