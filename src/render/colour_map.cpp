#include "render/colour_map.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attnviz::render {
namespace {

struct Stop {
    double at;
    int r, g, b;
};

using Table = std::array<QRgb, 256>;

template <std::size_t N> Table table(const Stop (&stops)[N])
{
    Table t{};
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double x = static_cast<double>(i) / (t.size() - 1);
        std::size_t k = 0;
        while (k + 2 < N && x > stops[k + 1].at)
            ++k;
        const Stop& a = stops[k];
        const Stop& b = stops[k + 1];
        const double f = std::clamp((x - a.at) / (b.at - a.at), 0.0, 1.0);
        const auto mix = [f](int p, int q) {
            return static_cast<int>(std::lround(p + (q - p) * f));
        };
        t[i] = qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
    return t;
}

const Table& viridis()
{
    static const Stop stops[] = {{0.0, 68, 1, 84},
                                 {0.25, 59, 82, 139},
                                 {0.5, 33, 145, 140},
                                 {0.75, 94, 201, 98},
                                 {1.0, 253, 231, 37}};
    static const Table t = table(stops);
    return t;
}

const Table& redBlue()
{
    static const Stop stops[] = {{0.0, 5, 48, 97},
                                 {0.25, 67, 147, 195},
                                 {0.5, 247, 247, 247},
                                 {0.75, 214, 96, 77},
                                 {1.0, 103, 0, 31}};
    static const Table t = table(stops);
    return t;
}

} // namespace

QRgb colourOf(double value, std::pair<double, double> range, lesson::ColourScale scale)
{
    // NaN is in no scale: a colour no map uses, so a NaN row cannot pass for a number.
    if (std::isnan(value))
        return qRgb(255, 0, 255);
    const Table& t = scale == lesson::ColourScale::Sequential ? viridis() : redBlue();
    const double span = range.second - range.first;
    double f = span > 0 ? (value - range.first) / span : 0.5;
    if (std::isnan(f))
        f = 0.5;
    const auto index = static_cast<std::size_t>(std::clamp(f, 0.0, 1.0) * (t.size() - 1) + 0.5);
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
