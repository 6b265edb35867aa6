#pragma once

#include "render/colour_map.h"

#include <QFont>

#include <optional>
#include <set>
#include <utility>

namespace attnviz::render {

/// A row, a column or a cell a teacher marks so the whole room sees it.
struct Highlight {
    enum class Kind { Row, Column, Cell } kind = Kind::Cell;
    int row = -1;
    int column = -1;
};

/// Which token labels a heatmap shows: as many as fit at the font size (every k-th, the smallest
/// k that fits), every one (the figure must be large enough; exports refuse otherwise), or none.
enum class LabelMode { Auto, All, None };

/// How a heatmap is drawn beyond its numbers. The screen and the exports differ only here.
struct HeatmapStyle {
    /// Axis titles use it; tick labels are 85 % of it, the title is bold.
    QFont font;
    bool colourBar = true;
    /// Draw each cell as a rectangle (crisp in SVG and PDF) rather than one scaled image; used
    /// for vector exports of matrices small enough for it.
    bool vectorCells = false;
    /// Print each cell's value in it when the cells are large enough to read it.
    bool valuesInCells = false;
    /// Print each row's sum right of the cells under "Σ" (the weights: every row sums to 1, a
    /// fully blocked row to 0), on the rows whose labels are shown.
    bool rowSums = false;
    std::optional<Highlight> highlight;
    /// Cells (row, column) of a mask the user is drawing, outlined over whatever the step
    /// shows, so the drawing is visible before the mask step as well as on it.
    std::set<std::pair<int, int>> drawnCells;
    Colouring colouring;
    LabelMode labels = LabelMode::Auto;
    /// Row labels may shrink to three quarters of the tick font before they are thinned: on
    /// screen a label shown is worth more than a tooltip; a figure keeps the size asked for.
    bool shrinkLabels = true;
    /// The frame in the head's colour around the cells (a paper's figure may want none).
    bool headFrame = true;
    /// Spaces in tokens drawn as ␣ (otherwise as spaces; line breaks and tabs keep their marks).
    bool spaceMarks = true;
    /// A white card behind the heatmap; without it, a transparent one for slides.
    bool background = true;
};

} // namespace attnviz::render
