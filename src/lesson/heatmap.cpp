#include "lesson/heatmap.h"

#include <algorithm>
#include <cmath>

namespace attnviz::lesson {

bool Heatmap::blocked(int row, int col) const
{
    return mask && mask->blocked(maskBatch, row, col);
}

std::pair<double, double> colourRange(const std::vector<Heatmap>& maps)
{
    double largest = 0;
    bool sequential = true;
    for (const Heatmap& m : maps) {
        sequential = sequential && m.scale == ColourScale::Sequential;
        const std::size_t n =
            static_cast<std::size_t>(m.rows()) * static_cast<std::size_t>(m.cols());
        for (std::size_t i = 0; i < n; ++i)
            if (std::isfinite(m.matrix.values[i]))
                largest = std::max(largest, static_cast<double>(std::abs(m.matrix.values[i])));
    }
    if (largest == 0)
        largest = 1;
    return sequential ? std::pair{0.0, largest} : std::pair{-largest, largest};
}

} // namespace attnviz::lesson
