#include "render/image_export.h"

#include "render/heatmap_grid.h"
#include "render/heatmap_layout.h"

#include <QBuffer>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <cmath>

namespace attnviz::render {
namespace {

// Up to this many cells, vector exports draw each cell as a rectangle (crisp in any viewer);
// beyond, one embedded image keeps the file small.
constexpr int kVectorCells = 128 * 128;

HeatmapStyle exportStyle(const std::vector<lesson::Heatmap>& maps, bool vector)
{
    HeatmapStyle style;
    style.font = exportFont();
    int cells = 0;
    for (const lesson::Heatmap& m : maps)
        cells = std::max(cells, m.rows() * m.cols());
    style.vectorCells = vector && cells <= kVectorCells;
    return style;
}

// Draws on a canvas of `logical` pixels (96 dpi units).
void paintFigure(QPainter& painter, QSizeF logical, const std::vector<lesson::Heatmap>& maps,
                 std::pair<double, double> range, const QString& title, bool vector)
{
    painter.fillRect(QRectF(QPointF(0, 0), logical), Qt::white);
    double top = 0;
    if (!title.isEmpty()) {
        QFont font = exportFont();
        font.setBold(true);
        font.setPixelSize(16);
        painter.setFont(font);
        painter.setPen(Qt::black);
        const QRectF band(0, 0, logical.width(), 32);
        painter.drawText(band, Qt::AlignCenter, visibleText(title));
        top = band.height();
    }
    paintGrid(painter, QRectF(0, top, logical.width(), logical.height() - top), maps,
              std::vector<std::pair<double, double>>(maps.size(), range),
              exportStyle(maps, vector));
}

// XML 1.0's Char production, for one UTF-16 unit that is not half of a pair: no control
// character but tab, line feed and carriage return, no lone surrogate, not U+FFFE or U+FFFF.
// Not even a character reference may stand for the others.
bool legalInXml(QChar c)
{
    const char16_t u = c.unicode();
    if (u < 0x20)
        return u == '\t' || u == '\n' || u == '\r';
    return !c.isSurrogate() && u != 0xfffe && u != 0xffff;
}

QSizeF logicalSize(ImageSize size)
{
    const double scale = size.dpi / 96.0;
    return {std::floor(size.width / scale), std::floor(size.height / scale)};
}

} // namespace

QString xmlEscaped(const QString& text)
{
    QString out;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c.isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            out += c;
            out += text[++i];
        } else if (!legalInXml(c)) {
            continue;
        } else if (c == QLatin1Char('&')) {
            out += QStringLiteral("&amp;");
        } else if (c == QLatin1Char('<')) {
            out += QStringLiteral("&lt;");
        } else if (c == QLatin1Char('>')) {
            out += QStringLiteral("&gt;");
        } else if (c == QLatin1Char('"')) {
            out += QStringLiteral("&quot;");
        } else if (c == QLatin1Char('\'')) {
            out += QStringLiteral("&apos;");
        } else {
            out += c;
        }
    }
    return out;
}

QFont exportFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(13);
    return font;
}

QImage rasterImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                   const QString& title, ImageSize size)
{
    // Opaque RGB: a quarter less to compress than ARGB, and exports have a white background.
    QImage image(size.width, size.height, QImage::Format_RGB888);
    image.fill(Qt::white);
    const int dotsPerMeter = static_cast<int>(std::lround(size.dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(size.dpi / 96.0, size.dpi / 96.0);
    paintFigure(painter, logicalSize(size), maps, range, title, false);
    painter.end();
    return image;
}

QByteArray encodePng(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    // Qt maps quality to zlib's level: 50 compresses these flat-coloured images almost as well as
    // the default, in half the time.
    image.save(&buffer, "PNG", 50);
    return bytes;
}

QByteArray renderImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                       const QString& title, ImageFormat format, ImageSize size)
{
    if (format == ImageFormat::Png)
        return encodePng(rasterImage(maps, range, title, size));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    // The visible form has no control character, which neither SVG nor PDF's XML metadata may
    // hold; Qt escapes the rest of the PDF's.
    const QString documentTitle = visibleText(
        title.isEmpty() && !maps.empty() ? QString::fromStdString(maps.front().title) : title);
    if (format == ImageFormat::Svg) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(size.width, size.height));
        svg.setViewBox(QRect(0, 0, size.width, size.height));
        svg.setResolution(size.dpi);
        svg.setTitle(xmlEscaped(documentTitle)); // QSvgGenerator writes it as given
        QPainter painter(&svg);
        painter.setRenderHint(QPainter::LosslessImageRendering);
        paintFigure(painter, QSizeF(size.width, size.height), maps, range, title, true);
        painter.end();
        return bytes;
    }
    QPdfWriter pdf(&buffer);
    pdf.setResolution(size.dpi);
    pdf.setPageSize(QPageSize(QSizeF(size.width * 72.0 / size.dpi, size.height * 72.0 / size.dpi),
                              QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setTitle(documentTitle);
    pdf.setCreator(QStringLiteral("AttnViz"));
    QPainter painter(&pdf);
    // Qt's PDF engine stores images as JPEG unless told otherwise: a weight of 1.0 came out pale
    // green, with halos along a causal diagonal.
    painter.setRenderHint(QPainter::LosslessImageRendering);
    painter.scale(size.dpi / 96.0, size.dpi / 96.0);
    paintFigure(painter, logicalSize(size), maps, range, title, true);
    painter.end();
    return bytes;
}

QPointF cellCentreInImage(const lesson::Heatmap& heatmap, std::pair<double, double> range,
                          ImageSize size, int row, int column)
{
    // Lay the figure out exactly as paintFigure and paintGrid do for one heatmap.
    HeatmapStyle style = exportStyle({heatmap}, false);
    const QSizeF logical = logicalSize(size);
    const HeatmapLayout layout(heatmap, range, QRectF(QPointF(0, 0), logical), style);
    return layout.cellCentre(row, column) * (size.dpi / 96.0);
}

} // namespace attnviz::render
