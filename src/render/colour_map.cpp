#include "render/colour_map.h"

#include "render/name_table.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attnviz::render {
namespace {

#include "render/colour_tables.inc"

} // namespace

const std::vector<ColourMap>& colourMaps()
{
    static const std::vector<ColourMap> maps{
        {"viridis", false, &kViridis, "perceptually uniform, dark blue to yellow (default)"},
        {"magma", false, &kMagma, "perceptually uniform, black to light yellow"},
        {"cividis", false, &kCividis, "uniform and alike for red-green colour blindness"},
        {"greys", false, &kGreys, "white to black, for print in black and white"},
        {"rdbu", true, &kRedBlue, "signed steps: blue, white at 0, red (default)"},
        {"coolwarm", true, &kCoolwarm, "signed steps: blue, grey at 0, red"},
    };
    return maps;
}

const ColourMap* colourMap(std::string_view name)
{
    return rowNamed(colourMaps(), name);
}

std::string colourMapList()
{
    return namesOf(colourMaps());
}

std::string Colouring::describe(lesson::ColourScale scale) const
{
    if (scale == lesson::ColourScale::Diverging)
        return "colour map " + std::string(diverging->name) + ", linear scale";
    return "colour map " + std::string(sequential->name) + ", " +
        lesson::stretchName(stretch, gamma) + " scale";
}

QRgb colourOf(double value, std::pair<double, double> range, lesson::ColourScale scale,
              const Colouring& colouring)
{
    // NaN is in no scale: a colour no map uses, so a NaN row cannot pass for a number.
    if (std::isnan(value))
        return qRgb(255, 0, 255);
    const std::array<QRgb, 256>& t = scale == lesson::ColourScale::Sequential
        ? *colouring.sequential->levels
        : *colouring.diverging->levels;
    const double f = lesson::barPosition(value, range, scale, colouring.stretch, colouring.gamma);
    const auto index = std::min<std::size_t>(static_cast<std::size_t>(f * 256.0), t.size() - 1);
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
