#include "app/views/rotary_pairs_view.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnviz::app {
namespace {

const QColor kQuery(59, 82, 139);
const QColor kKey(214, 110, 20);

// An arrow from the plane's centre to (x, y) in plane units (y up), `scale` pixels a unit.
void arrow(QPainter& p, QPointF centre, std::array<float, 2> v, double scale, const QPen& pen,
           bool head)
{
    const QPointF tip(centre.x() + v[0] * scale, centre.y() - v[1] * scale);
    p.setPen(pen);
    p.drawLine(centre, tip);
    if (!head)
        return;
    const double angle = std::atan2(-(tip.y() - centre.y()), tip.x() - centre.x());
    const double size = std::max(4.0, pen.widthF() * 3);
    QPainterPath path;
    path.moveTo(tip);
    path.lineTo(tip.x() - size * std::cos(angle - 0.45), tip.y() + size * std::sin(angle - 0.45));
    path.lineTo(tip.x() - size * std::cos(angle + 0.45), tip.y() + size * std::sin(angle + 0.45));
    path.closeSubpath();
    p.fillPath(path, pen.color());
}

} // namespace

RotaryPairsView::RotaryPairsView(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(240, 200);
}

void RotaryPairsView::setPairs(std::optional<lesson::RotaryPairs> pairs)
{
    m_pairs = std::move(pairs);
    update();
}

void RotaryPairsView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (!m_pairs || m_pairs->pairs.empty())
        return;
    const std::vector<lesson::RotaryPair>& pairs = m_pairs->pairs;

    // The legend along the top.
    const QFontMetrics metrics(font());
    const int line = metrics.height();
    int x = 6;
    const auto legend = [&](const QColor& colour, Qt::PenStyle style, const QString& text) {
        p.setPen(QPen(colour, style == Qt::SolidLine ? 2.5 : 1.2, style));
        p.drawLine(x, line / 2 + 3, x + 22, line / 2 + 3);
        p.setPen(palette().text().color());
        p.drawText(x + 26, line, text);
        x += 34 + metrics.horizontalAdvance(text);
    };
    legend(kQuery, Qt::SolidLine, tr("query, turned"));
    legend(kQuery, Qt::DashLine, tr("before"));
    legend(kKey, Qt::SolidLine, tr("key, turned"));
    legend(kKey, Qt::DashLine, tr("before"));

    // Planes in a grid as square as the widget allows, all on one scale.
    const int n = static_cast<int>(pairs.size());
    const QRectF area = QRectF(rect()).adjusted(4, line + 10, -4, -4);
    int columns = 1;
    double side = 0;
    for (int c = 1; c <= n; ++c) {
        const int rows = (n + c - 1) / c;
        const double s = std::min(area.width() / c, area.height() / rows);
        if (s > side) {
            side = s;
            columns = c;
        }
    }
    double longest = 1e-12;
    for (const lesson::RotaryPair& pair : pairs)
        for (const auto& v : {pair.query, pair.key})
            longest = std::max(longest, std::hypot(double(v[0]), double(v[1])));
    const double labelHeight = side > 90 ? 2.0 * line : 0.0;
    const double radius = std::max(4.0, (side - labelHeight) / 2 - 6);
    const double scale = radius / longest;
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.85));
    p.setFont(small);
    for (int i = 0; i < n; ++i) {
        const lesson::RotaryPair& pair = pairs[static_cast<std::size_t>(i)];
        const QRectF cell(area.left() + (i % columns) * side, area.top() + (i / columns) * side,
                          side, side);
        const QPointF centre(cell.center().x(), cell.top() + 4 + radius + 2);
        p.setPen(QPen(palette().mid().color(), 1));
        p.drawEllipse(centre, radius, radius);
        p.drawLine(QPointF(centre.x() - radius, centre.y()),
                   QPointF(centre.x() + radius, centre.y()));
        p.drawLine(QPointF(centre.x(), centre.y() - radius),
                   QPointF(centre.x(), centre.y() + radius));
        arrow(p, centre, pair.query, scale, QPen(kQuery.lighter(140), 1.2, Qt::DashLine), false);
        arrow(p, centre, pair.key, scale, QPen(kKey.lighter(140), 1.2, Qt::DashLine), false);
        arrow(p, centre, pair.queryTurned, scale, QPen(kQuery, 2.5), true);
        arrow(p, centre, pair.keyTurned, scale, QPen(kKey, 2.5), true);
        if (labelHeight > 0) {
            p.setPen(palette().text().color());
            const QRectF text(cell.left(), centre.y() + radius + 2, cell.width(), labelHeight);
            p.drawText(text, Qt::AlignHCenter | Qt::AlignTop,
                       tr("pair %1 · %2 rad/pos\nq·k %3")
                           .arg(pair.index)
                           .arg(pair.frequency, 0, 'g', 2)
                           .arg(pair.product, 0, 'f', 3));
        }
    }
}

} // namespace attnviz::app
