#include "engine/positional_encoding.h"

#include <cmath>

namespace attnviz::engine {

RowMatrix sinusoidalPositionalEncoding(Eigen::Index positions, Eigen::Index width)
{
    RowMatrix pe(positions, width);
    for (Eigen::Index pos = 0; pos < positions; ++pos)
        for (Eigen::Index col = 0; col < width; ++col) {
            const double pairIndex = static_cast<double>(col / 2 * 2);
            const double angle = static_cast<double>(pos) /
                std::pow(10000.0, pairIndex / static_cast<double>(width));
            pe(pos, col) = static_cast<float>(col % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

} // namespace attnviz::engine
