#pragma once

#include "app/heatmap_data.h"

#include <QByteArray>
#include <QImage>
#include <QRect>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

class QCPPainter;

namespace attnviz::exporting {

enum class ImageFormat { Png, Svg, Pdf };
std::optional<ImageFormat> imageFormatFromName(const QString& name); ///< "png", "svg", "pdf"
QString extensionOf(ImageFormat format);

/// The size of an exported image in pixels and its resolution. Text and lines scale with the
/// resolution, so a 2400-pixel-wide figure at 300 dpi looks like a 768-pixel one at 96 dpi, only
/// sharper; SVG and PDF are vector images of the same layout.
struct ImageSize {
    int width = 900;
    int height = 800;
    int dpi = 96;
};

/// One matrix drawn as the app's views draw it — token labels, colour bar, blocked cells grey —
/// with `data.title` on top. The app and `attnviz-cli export` both call this, so the same view
/// gives the same bytes.
QByteArray renderHeatmap(const app::HeatmapData& data, std::pair<double, double> range, ImageFormat format,
                         ImageSize size);

/// How paintMatrices lays a grid out.
struct GridStyle {
    int maxSingleRow = 3;     ///< up to this many matrices stand in one row
    bool squareCells = false; ///< cells no taller than wide (pages with text above)
};

/// Draws `maps` as a grid inside `area`, matrix i on colour range `ranges[i]`. When all ranges
/// are equal there is one colour bar, beside the last matrix, as in the app; else one each.
void paintMatrices(QCPPainter& painter, QRect area, const std::vector<app::HeatmapData>& maps,
                   const std::vector<std::pair<double, double>>& ranges, GridStyle style);

/// The raster image of renderHeatmap, and its PNG encoding: split so that encoding, the slow
/// half, can run on other threads while the next image is drawn (widgets draw on the GUI thread
/// only).
QImage renderHeatmapImage(const app::HeatmapData& data, std::pair<double, double> range, ImageSize size);
QByteArray encodePng(const QImage& image);

/// Where the centre of a cell lands in the image renderHeatmap makes of `data` at `size`
/// (pixels), e.g. to annotate an exported figure or to check it.
QPointF cellCentreInImage(const app::HeatmapData& data, std::pair<double, double> range, ImageSize size, int row,
                          int column);

/// Several matrices side by side on one scale, under one title (a head grid).
QByteArray renderGrid(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range,
                      const QString& title, ImageFormat format, ImageSize size);

/// The raster form of renderGrid (the clipboard takes images, not bytes).
QImage renderGridImage(const std::vector<app::HeatmapData>& maps, std::pair<double, double> range,
                       const QString& title, ImageSize size);

} // namespace attnviz::exporting
