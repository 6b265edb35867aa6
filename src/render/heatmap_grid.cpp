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

GridPlan planGrid(QRectF area, const std::vector<lesson::Heatmap>& maps,
                  const std::vector<std::pair<double, double>>& ranges, const HeatmapStyle& style,
                  GridStyle grid)
{
    GridPlan plan;
    const int count = static_cast<int>(maps.size());
    const int columns = grid.columns > 0 ? grid.columns : gridColumns(count, grid.maxSingleRow);
    const int rows = std::max((count + columns - 1) / columns, 1);
    const bool oneRange = std::all_of(ranges.begin(), ranges.end(),
                                      [&](const auto& r) { return r == ranges.front(); });
    const bool barBeside = grid.barBesideGrid && oneRange && style.colourBar && count > 1;
    if (barBeside) {
        const double strip = colourBarWidth(ranges.front(), style, maps.front().scale);
        plan.bar = QRectF(area.right() - strip, area.top(), strip, area.height());
        area.setRight(area.right() - strip);
    }
    const double width = area.width() / columns;
    const double height =
        grid.squareCells ? std::min(width, area.height() / rows) : area.height() / rows;
    for (int i = 0; i < count; ++i) {
        HeatmapStyle own = style;
        own.colourBar = style.colourBar && !barBeside &&
            (!oneRange || i == sharedColourBarIndex(count, columns));
        const GridSlot slot = gridSlot(i, count, columns);
        plan.panels.push_back({QRectF(area.left() + slot.halfColumn * width / 2,
                                      area.top() + slot.row * height, width, height),
                               own});
    }
    return plan;
}

void paintGrid(QPainter& painter, QRectF area, const std::vector<lesson::Heatmap>& maps,
               const std::vector<std::pair<double, double>>& ranges, const HeatmapStyle& style,
               GridStyle grid)
{
    const GridPlan plan = planGrid(area, maps, ranges, style, grid);
    if (plan.bar)
        paintColourBar(painter, *plan.bar, maps.front().scale, ranges.front(), style);
    for (std::size_t i = 0; i < plan.panels.size(); ++i) {
        const GridPlan::Panel& panel = plan.panels[i];
        paintHeatmap(painter, HeatmapLayout(maps[i], ranges[i], panel.area, panel.style), maps[i],
                     ranges[i], panel.style);
    }
}

} // namespace attnviz::render
