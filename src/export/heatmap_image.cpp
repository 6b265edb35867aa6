#include "export/heatmap_image.h"

#include "app/heatmap_view.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace attnviz::exporting {
namespace {

// Exports use a fixed font, not the desktop's, so that they look the same on every machine.
QFont exportFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(13);
    return font;
}

// Draws the grid into `painter` on a canvas of `logical` pixels (96 dpi units).
void paintGrid(QCPPainter& painter, QSize logical, const std::vector<app::HeatmapData>& maps,
               std::pair<double, double> range, const QString& title)
{
    painter.fillRect(QRect(QPoint(0, 0), logical), Qt::white);
    int top = 0;
    if (!title.isEmpty()) {
        QFont font = exportFont();
        font.setBold(true);
        font.setPixelSize(16);
        painter.setFont(font);
        painter.setPen(Qt::black);
        const QRect band(0, 0, logical.width(), 32);
        painter.drawText(band, Qt::AlignCenter, title);
        top = band.height();
    }
    paintMatrices(painter, QRect(0, top, logical.width(), logical.height() - top), maps,
                  std::vector<std::pair<double, double>>(maps.size(), range), {});
}

} // namespace

void paintMatrices(QCPPainter& painter, QRect area, const std::vector<app::HeatmapData>& maps,
                   const std::vector<std::pair<double, double>>& ranges, GridStyle style)
{
    const int count = static_cast<int>(maps.size());
    const int columns = app::gridColumns(count, style.maxSingleRow);
    const int rows = std::max((count + columns - 1) / columns, 1);
    const int cellWidth = area.width() / columns;
    const int cellHeight = style.squareCells ? std::min(cellWidth, area.height() / rows) : area.height() / rows;
    const bool oneRange = std::all_of(ranges.begin(), ranges.end(), [&](const auto& r) { return r == ranges.front(); });
    app::HeatmapView view;
    view.setFont(exportFont());
    for (int i = 0; i < count; ++i) {
        // One colour range: one colour bar, beside the last matrix, as in the app.
        const auto at = static_cast<std::size_t>(i);
        view.setData(maps[at], ranges[at], !oneRange || i + 1 == count);
        view.fitLabels(QSize(cellWidth, cellHeight));
        painter.save();
        painter.translate(area.left() + (i % columns) * cellWidth, area.top() + (i / columns) * cellHeight);
        view.plot()->toPainter(&painter, cellWidth, cellHeight);
        painter.restore();
    }
}

namespace {

QImage raster(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range, const QString& title,
              ImageSize size)
{
    // Opaque RGB: a quarter less to compress than ARGB, and exports have a white background.
    QImage image(size.width, size.height, QImage::Format_RGB888);
    image.fill(Qt::white);
    const double scale = size.dpi / 96.0;
    const int dotsPerMeter = static_cast<int>(std::lround(size.dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(scale, scale);
    paintGrid(painter, QSize(static_cast<int>(size.width / scale), static_cast<int>(size.height / scale)), maps, range, title);
    painter.end();
    return image;
}

QByteArray render(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range, const QString& title,
                  ImageFormat format, ImageSize size)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QString documentTitle = title.isEmpty() && !maps.empty() ? maps.front().title : title;
    switch (format) {
    case ImageFormat::Png:
        buffer.write(encodePng(raster(maps, range, title, size)));
        break;
    case ImageFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(size.width, size.height));
        svg.setViewBox(QRect(0, 0, size.width, size.height));
        svg.setResolution(size.dpi);
        svg.setTitle(documentTitle);
        QCPPainter painter(&svg);
        paintGrid(painter, QSize(size.width, size.height), maps, range, title);
        painter.end();
        break;
    }
    case ImageFormat::Pdf: {
        QPdfWriter pdf(&buffer);
        pdf.setResolution(size.dpi);
        pdf.setPageSize(QPageSize(QSizeF(size.width * 72.0 / size.dpi, size.height * 72.0 / size.dpi), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(documentTitle);
        pdf.setCreator(QStringLiteral("AttnViz"));
        QCPPainter painter(&pdf);
        const double scale = size.dpi / 96.0;
        painter.scale(scale, scale);
        paintGrid(painter, QSize(static_cast<int>(size.width / scale), static_cast<int>(size.height / scale)), maps, range, title);
        painter.end();
        break;
    }
    }
    return bytes;
}

} // namespace

QImage renderHeatmapImage(const app::HeatmapData& data, std::pair<double, double> range, ImageSize size)
{
    return raster({data}, range, QString(), size);
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

QPointF cellCentreInImage(const app::HeatmapData& data, std::pair<double, double> range, ImageSize size, int row,
                          int column)
{
    // Lay the plot out exactly as paintGrid does, then ask its axes.
    const double scale = size.dpi / 96.0;
    QImage scratch(1, 1, QImage::Format_ARGB32);
    QCPPainter painter(&scratch);
    app::HeatmapView view;
    view.setFont(exportFont());
    view.setData(data, range, true);
    view.fitLabels(QSize(static_cast<int>(size.width / scale), static_cast<int>(size.height / scale)));
    view.plot()->toPainter(&painter, static_cast<int>(size.width / scale), static_cast<int>(size.height / scale));
    painter.end();
    return {view.plot()->xAxis->coordToPixel(column) * scale, view.plot()->yAxis->coordToPixel(row) * scale};
}

std::optional<ImageFormat> imageFormatFromName(const QString& name)
{
    const QString n = name.toLower();
    if (n == QLatin1String("png"))
        return ImageFormat::Png;
    if (n == QLatin1String("svg"))
        return ImageFormat::Svg;
    if (n == QLatin1String("pdf"))
        return ImageFormat::Pdf;
    return std::nullopt;
}

QString extensionOf(ImageFormat format)
{
    switch (format) {
    case ImageFormat::Png: return QStringLiteral("png");
    case ImageFormat::Svg: return QStringLiteral("svg");
    case ImageFormat::Pdf: return QStringLiteral("pdf");
    }
    return {};
}

QByteArray renderHeatmap(const app::HeatmapData& data, std::pair<double, double> range, ImageFormat format,
                         ImageSize size)
{
    return render({data}, range, QString(), format, size);
}

QByteArray renderGrid(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range,
                      const QString& title, ImageFormat format, ImageSize size)
{
    return render(maps, range, title, format, size);
}

QImage renderGridImage(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range,
                       const QString& title, ImageSize size)
{
    return raster(maps, range, title, size);
}

} // namespace attnviz::exporting
