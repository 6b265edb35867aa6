#include "app/heatmap_data.h"

#include <algorithm>
#include <cmath>

namespace attnviz::app {

bool HeatmapData::blocked(int row, int col) const
{
    const float v = blockedSource ? blockedSource[static_cast<std::size_t>(row) * cols + col]
                                  : value(row, col);
    return std::isinf(v) && v < 0;
}

std::pair<double, double> colourRange(const std::vector<HeatmapData>& maps)
{
    double largest = 0;
    bool sequential = true;
    for (const HeatmapData& m : maps) {
        sequential = sequential && m.scale == ColourScale::Sequential;
        for (int i = 0; i < m.rows * m.cols; ++i)
            if (std::isfinite(m.values[i]))
                largest = std::max(largest, static_cast<double>(std::abs(m.values[i])));
    }
    if (largest == 0)
        largest = 1;
    return sequential ? std::pair{0.0, largest} : std::pair{-largest, largest};
}

int gridColumns(int count, int maxSingleRow)
{
    if (count <= maxSingleRow)
        return std::max(count, 1);
    return static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
}

QColor headColour(int head)
{
    // Okabe–Ito palette: distinguishable with the common colour-vision deficiencies.
    static const QColor palette[] = {QColor(230, 159, 0), QColor(86, 180, 233), QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(213, 94, 0), QColor(0, 114, 178),
                                     QColor(240, 228, 66), QColor(120, 120, 120)};
    const QColor base = palette[head % 8];
    return head < 8 ? base : base.darker(100 + 40 * (head / 8));
}

} // namespace attnviz::app
