#include "render/colour_map.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attnviz::render {
namespace {

#include "render/colour_tables.inc"

} // namespace

QRgb colourOf(double value, std::pair<double, double> range, lesson::ColourScale scale)
{
    // NaN is in no scale: a colour no map uses, so a NaN row cannot pass for a number.
    if (std::isnan(value))
        return qRgb(255, 0, 255);
    const std::array<QRgb, 256>& t = scale == lesson::ColourScale::Sequential ? kViridis : kRedBlue;
    const double span = range.second - range.first;
    double f = span > 0 ? (value - range.first) / span : 0.5;
    if (std::isnan(f))
        f = 0.5;
    // matplotlib's rule, so that the same numbers and range give the same colours: level
    // ⌊f · 256⌋, the top of the range in the last.
    const auto index = std::min<std::size_t>(
        static_cast<std::size_t>(std::clamp(f, 0.0, 1.0) * static_cast<double>(t.size())),
        t.size() - 1);
    return t[index];
}

QColor blockedColour()
{
    return {190, 190, 190};
}

QColor headColour(int head)
{
    static const QColor palette[] = {
        QColor(230, 159, 0), QColor(86, 180, 233), QColor(0, 158, 115),  QColor(204, 121, 167),
        QColor(213, 94, 0),  QColor(0, 114, 178),  QColor(240, 228, 66), QColor(120, 120, 120)};
    const QColor base = palette[std::max(head, 0) % 8];
    return head < 8 ? base : base.darker(100 + 40 * (head / 8));
}

} // namespace attnviz::render
