#pragma once

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
};

} // namespace attnviz::render
