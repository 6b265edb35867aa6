#pragma once

#include "lesson/heatmap.h"
#include "render/heatmap_style.h"

#include <QPainter>
#include <QRectF>

#include <optional>
#include <utility>
#include <vector>

namespace attnviz::render {

/// How many columns a grid of `count` matrices uses: one row up to `maxSingleRow`, then a
/// near-square arrangement. The app's head grid, exported grids and handout pages share it.
int gridColumns(int count, int maxSingleRow = 3);

/// Where matrix `index` of `count` sits in a grid of `columns`: its row, and its column counted
/// in half-columns, so that a shorter last row is centred under the others.
struct GridSlot {
    int row;
    int halfColumn;
};
GridSlot gridSlot(int index, int count, int columns);

/// Which matrix carries the one colour bar that all share: the last of the first row, beside
/// the grid rather than in its middle.
int sharedColourBarIndex(int count, int columns);

/// How a grid is arranged.
struct GridStyle {
    int maxSingleRow = 3; ///< up to this many matrices stand in one row
    bool squareCells = false; ///< cells no taller than wide (pages with text above)
    int columns = 0; ///< a fixed number of columns (a layers × heads figure); 0: gridColumns
    /// One colour bar in a strip right of the grid when all ranges are equal, so every panel
    /// has the same size (figures); otherwise the bar stands in the last panel of the first row
    /// (the app's and the handout's grids).
    bool barBesideGrid = false;
};

/// Where a grid puts its colour bar (when one stands beside the grid) and each matrix, with the
/// style each is drawn in: what paintGrid draws, and what an export checks before drawing.
struct GridPlan {
    std::optional<QRectF> bar;
    struct Panel {
        QRectF area;
        HeatmapStyle style;
    };
    std::vector<Panel> panels;
};
GridPlan planGrid(QRectF area, const std::vector<lesson::Heatmap>& maps,
                  const std::vector<std::pair<double, double>>& ranges, const HeatmapStyle& style,
                  GridStyle grid = {});

/// Draws `maps` as a grid inside `area`, matrix i on colour range `ranges[i]`. When all ranges
/// are equal there is one colour bar (see GridStyle); else one each.
void paintGrid(QPainter& painter, QRectF area, const std::vector<lesson::Heatmap>& maps,
               const std::vector<std::pair<double, double>>& ranges, const HeatmapStyle& style,
               GridStyle grid = {});

} // namespace attnviz::render
