#include "render/heatmap_grid.h"

#include "render/heatmap_layout.h"
#include "render/heatmap_painter.h"

#include <algorithm>
#include <cmath>

namespace attnviz::render {

int gridColumns(int count, int maxSingleRow)
{
    if (count <= maxSingleRow)
        return std::max(count, 1);
    return static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
}

GridSlot gridSlot(int index, int count, int columns)
{
    const int row = index / columns;
    const int inRow = std::min(columns, count - row * columns);
    return {row, 2 * (index % columns) + (columns - inRow)};
}

int sharedColourBarIndex(int count, int columns)
{
    return std::min(columns, count) - 1;
}

void paintGrid(QPainter& painter, QRectF area, const std::vector<lesson::Heatmap>& maps,
               const std::vector<std::pair<double, double>>& ranges, const HeatmapStyle& style,
               GridStyle grid)
{
    const int count = static_cast<int>(maps.size());
    const int columns = grid.columns > 0 ? grid.columns : gridColumns(count, grid.maxSingleRow);
    const int rows = std::max((count + columns - 1) / columns, 1);
    const bool oneRange = std::all_of(ranges.begin(), ranges.end(),
                                      [&](const auto& r) { return r == ranges.front(); });
    const bool barBeside = grid.barBesideGrid && oneRange && style.colourBar && count > 1;
    if (barBeside) {
        const double strip = colourBarWidth(ranges.front(), style, maps.front().scale);
        paintColourBar(painter, QRectF(area.right() - strip, area.top(), strip, area.height()),
                       maps.front().scale, ranges.front(), style);
        area.setRight(area.right() - strip);
    }
    const double width = area.width() / columns;
    const double height =
        grid.squareCells ? std::min(width, area.height() / rows) : area.height() / rows;
    for (int i = 0; i < count; ++i) {
        const auto at = static_cast<std::size_t>(i);
        HeatmapStyle own = style;
        own.colourBar = style.colourBar && !barBeside &&
            (!oneRange || i == sharedColourBarIndex(count, columns));
        const GridSlot slot = gridSlot(i, count, columns);
        const QRectF cell(area.left() + slot.halfColumn * width / 2, area.top() + slot.row * height,
                          width, height);
        paintHeatmap(painter, HeatmapLayout(maps[at], ranges[at], cell, own), maps[at], ranges[at],
                     own);
    }
}

} // namespace attnviz::render
