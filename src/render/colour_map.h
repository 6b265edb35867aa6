#pragma once

#include "lesson/heatmap.h"

#include <QColor>

#include <utility>

namespace attnviz::render {

/// The colour of a value on a heatmap's scale: viridis for the sequential scale (perceptually
/// uniform, readable in greyscale and with colour-vision deficiencies), blue–white–red centred on
/// zero (ColorBrewer RdBu, reversed) for signed values. The 256 levels of each are the published
/// definitions (colour_tables.inc, written by tools/make_colour_tables.py), and a value picks its
/// level as matplotlib does, so a figure matches an imshow of the same numbers and range.
QRgb colourOf(double value, std::pair<double, double> range, lesson::ColourScale scale);

/// Blocked cells: a neutral grey neither map uses ("blocked is not a number").
QColor blockedColour();

/// One colour per head, the same everywhere (titles, frames, column bands, legends), so
/// "head 3" can be followed across steps. Okabe–Ito: distinguishable with the common
/// colour-vision deficiencies.
QColor headColour(int head);

} // namespace attnviz::render
