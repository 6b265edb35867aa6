#include "app/colour_gradients.h"

#include <qcustomplot.h>

namespace attnviz::app {
namespace {

const QColor kBlocked(190, 190, 190);

QCPColorGradient gradient(std::initializer_list<std::pair<double, QColor>> stops)
{
    QCPColorGradient g;
    g.clearColorStops();
    for (const auto& [at, colour] : stops)
        g.setColorStopAt(at, colour);
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(kBlocked);
    g.setLevelCount(256);
    return g;
}

} // namespace

const QCPColorGradient& sequentialGradient()
{
    static const QCPColorGradient g = gradient({{0.0, QColor(68, 1, 84)}, {0.25, QColor(59, 82, 139)},
                                                {0.5, QColor(33, 145, 140)}, {0.75, QColor(94, 201, 98)},
                                                {1.0, QColor(253, 231, 37)}});
    return g;
}

const QCPColorGradient& divergingGradient()
{
    static const QCPColorGradient g = gradient({{0.0, QColor(5, 48, 97)}, {0.25, QColor(67, 147, 195)},
                                                {0.5, QColor(247, 247, 247)}, {0.75, QColor(214, 96, 77)},
                                                {1.0, QColor(103, 0, 31)}});
    return g;
}

} // namespace attnviz::app
