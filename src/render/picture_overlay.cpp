#include "render/picture_overlay.h"

#include "render/heatmap_layout.h"
#include "render/heatmap_painter.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace attnviz::render {
namespace {

HeatmapStyle barStyle(const PictureOverlay& overlay, const QFont& font)
{
    HeatmapStyle style;
    style.font = font;
    style.colouring.sequential = overlay.colourMap;
    return style;
}

// The title band above the picture and the note below it, each as tall as its wrapped text.
double bandHeight(const QString& text, const QFont& font, double width)
{
    if (text.isEmpty())
        return 0;
    return QFontMetricsF(font)
               .boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignCenter | Qt::TextWordWrap, text)
               .height() +
        8;
}

QFont titleFont(const QFont& font)
{
    QFont bold = font;
    bold.setBold(true);
    return bold;
}

} // namespace

QImage pictureImage(const io::DecodedImage& picture)
{
    QImage image(picture.width, picture.height, QImage::Format_RGB888);
    for (int y = 0; y < picture.height; ++y)
        std::copy_n(picture.rgb.data() + static_cast<std::size_t>(y) * picture.width * 3,
                    picture.width * 3, image.scanLine(y));
    return image;
}

std::pair<double, double> PictureOverlay::range() const
{
    double top = 0;
    for (const double v : attention.patches)
        if (std::isfinite(v))
            top = std::max(top, v);
    return {0.0, top > 0 ? top : 1.0};
}

QRectF pictureRect(const PictureOverlay& overlay, QRectF area, const QFont& font)
{
    const HeatmapStyle style = barStyle(overlay, font);
    const double bar = overlay.weights
        ? colourBarWidth(overlay.range(), style, lesson::ColourScale::Sequential)
        : 0.0;
    const double top = bandHeight(visibleText(overlay.title), titleFont(font), area.width() - 16);
    const double bottom = bandHeight(overlay.firstTokensNote, font, area.width() - 16);
    const QRectF room(area.left() + 8, area.top() + top + 4, area.width() - bar - 24,
                      area.height() - top - bottom - 8);
    if (overlay.picture.isNull() || room.width() <= 0 || room.height() <= 0)
        return {};
    const double scale =
        std::min(room.width() / overlay.picture.width(), room.height() / overlay.picture.height());
    const QSizeF size(overlay.picture.width() * scale, overlay.picture.height() * scale);
    return QRectF(room.left() + (room.width() - size.width()) / 2,
                  room.top() + (room.height() - size.height()) / 2, size.width(), size.height());
}

void paintPictureOverlay(QPainter& painter, QRectF area, const PictureOverlay& overlay,
                         const QFont& font, bool vector)
{
    const QRectF picture = pictureRect(overlay, area, font);
    const QString title = visibleText(overlay.title);
    painter.setPen(Qt::black);
    painter.setFont(titleFont(font));
    const double top = bandHeight(title, titleFont(font), area.width() - 16);
    painter.drawText(QRectF(area.left() + 8, area.top(), area.width() - 16, top),
                     Qt::AlignCenter | Qt::TextWordWrap, title);
    if (picture.isEmpty())
        return;
    // Pixels stay square blocks: a 32-pixel picture smoothed to 500 would blur what the
    // patches cut.
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(picture, overlay.picture);
    painter.restore();

    const lesson::PictureAttention& a = overlay.attention;
    const std::pair<double, double> range = overlay.range();
    Colouring colouring;
    colouring.sequential = overlay.colourMap;
    const double cellWidth = picture.width() / std::max(1, a.patchColumns);
    const double cellHeight = picture.height() / std::max(1, a.patchRows);
    const auto cell = [&](int row, int column) {
        return QRectF(picture.left() + column * cellWidth, picture.top() + row * cellHeight,
                      cellWidth, cellHeight);
    };
    // The tint as one image (one pixel per patch, scaled without smoothing) on screen and in
    // PNG; as rectangles in SVG and PDF, where each patch stays a crisp shape.
    const double opacity = overlay.weights ? std::clamp(overlay.opacity, 0.0, 1.0) : 0.0;
    if (!overlay.weights) {
    } else if (vector) {
        painter.save();
        painter.setPen(Qt::NoPen);
        painter.setOpacity(opacity);
        for (int r = 0; r < a.patchRows; ++r)
            for (int c = 0; c < a.patchColumns; ++c)
                painter.fillRect(cell(r, c),
                                 QColor::fromRgb(colourOf(
                                     a.patches[static_cast<std::size_t>(r * a.patchColumns + c)],
                                     range, lesson::ColourScale::Sequential, colouring)));
        painter.restore();
    } else if (a.patchRows > 0 && a.patchColumns > 0) {
        QImage tint(a.patchColumns, a.patchRows, QImage::Format_RGB32);
        for (int r = 0; r < a.patchRows; ++r)
            for (int c = 0; c < a.patchColumns; ++c)
                tint.setPixel(c, r,
                              colourOf(a.patches[static_cast<std::size_t>(r * a.patchColumns + c)],
                                       range, lesson::ColourScale::Sequential, colouring));
        painter.save();
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.setOpacity(opacity);
        painter.drawImage(picture, tint);
        painter.restore();
    }
    // The patch grid, faint, so the cut into tokens stays visible under any tint; drawn boldly,
    // with each patch's token number, when the cut itself is the lesson.
    painter.save();
    painter.setPen(overlay.weights ? QPen(QColor(255, 255, 255, 90), 0.6) : QPen(Qt::white, 1.5));
    for (int r = 1; r < a.patchRows; ++r)
        painter.drawLine(QPointF(picture.left(), picture.top() + r * cellHeight),
                         QPointF(picture.right(), picture.top() + r * cellHeight));
    for (int c = 1; c < a.patchColumns; ++c)
        painter.drawLine(QPointF(picture.left() + c * cellWidth, picture.top()),
                         QPointF(picture.left() + c * cellWidth, picture.bottom()));
    if (!overlay.weights && cellWidth >= 18 && cellHeight >= 14) {
        QFont small = font;
        small.setPixelSize(std::max(9, static_cast<int>(std::min(cellHeight, cellWidth) / 3.2)));
        painter.setFont(small);
        const QFontMetricsF metrics(small);
        for (int r = 0; r < a.patchRows; ++r)
            for (int c = 0; c < a.patchColumns; ++c) {
                const QString number =
                    QString::number(overlay.firstPatchToken + r * a.patchColumns + c);
                const QRectF box = metrics.boundingRect(number).adjusted(-2, 0, 2, 0);
                const QRectF at(cell(r, c).topLeft() + QPointF(2, 2), box.size());
                painter.fillRect(at, QColor(0, 0, 0, 150));
                painter.setPen(Qt::white);
                painter.drawText(at, Qt::AlignCenter, number);
            }
    }
    if (overlay.queryPatch >= 0 && a.patchColumns > 0) {
        const QRectF q =
            cell(overlay.queryPatch / a.patchColumns, overlay.queryPatch % a.patchColumns);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(Qt::black, 3));
        painter.drawRect(q);
        painter.setPen(QPen(Qt::white, 1.5));
        painter.drawRect(q);
    }
    painter.restore();

    if (overlay.weights) {
        const HeatmapStyle style = barStyle(overlay, font);
        const double bar = colourBarWidth(range, style, lesson::ColourScale::Sequential);
        paintColourBar(painter, QRectF(picture.right() + 12, picture.top(), bar, picture.height()),
                       lesson::ColourScale::Sequential, range, style);
    }
    if (!overlay.firstTokensNote.isEmpty()) {
        painter.setPen(Qt::black);
        painter.setFont(font);
        painter.drawText(QRectF(area.left() + 8, picture.bottom() + 4, area.width() - 16,
                                area.bottom() - picture.bottom() - 4),
                         Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
                         overlay.firstTokensNote);
    }
}

QByteArray renderPictureOverlay(const PictureOverlay& overlay, ImageFormat format,
                                const FigureOptions& figure)
{
    PictureOverlay shown = overlay;
    // A figure's colour map, when its options name one other than the default, wins.
    if (figure.colouring.sequential != Colouring{}.sequential)
        shown.colourMap = figure.colouring.sequential;
    const QFont font = exportFont(figure);
    return renderPainting(
        [&](QPainter& painter, QSizeF logical, bool vector) {
            if (!figure.transparent)
                painter.fillRect(QRectF(QPointF(0, 0), logical), Qt::white);
            paintPictureOverlay(painter, QRectF(QPointF(0, 0), logical), shown, font, vector);
        },
        overlay.title, format, figure);
}

} // namespace attnviz::render
