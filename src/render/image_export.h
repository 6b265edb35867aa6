#pragma once

#include "lesson/heatmap.h"
#include "render/heatmap_layout.h"
#include "render/heatmap_style.h"

#include <QByteArray>
#include <QImage>
#include <QPainter>
#include <QPointF>
#include <QString>

#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::render {

enum class ImageFormat { Png, Svg, Pdf };

/// The image format a file extension names ("png", "svg", "pdf"; any case, with or without the
/// dot), if any.
std::optional<ImageFormat> imageFormatOfExtension(std::string_view extension);

/// The size of an exported image in pixels and its resolution. Text and lines scale with the
/// resolution, so a 2400-pixel-wide figure at 300 dpi looks like a 768-pixel one at 96 dpi, only
/// sharper; SVG and PDF are vector images of the same layout.
struct ImageSize {
    int width = 900;
    int height = 800;
    int dpi = 96;
};

/// How an exported figure looks beyond its numbers: the user's choices (--colour-map, --labels,
/// --font-size, --no-frame, ...). The defaults are the figures AttnViz has always made.
struct FigureOptions {
    ImageSize size;
    Colouring colouring;
    LabelMode labels = LabelMode::Auto;
    /// The text's size in points (13 pixels at 96 dpi) and family: any installed family, or
    /// "serif", "sans", "mono", "latex" (Computer Modern, as LaTeX sets a paper).
    double fontPoints = 9.75;
    QString fontFamily = QStringLiteral("sans");
    bool headFrame = true;
    bool spaceMarks = true;
    bool transparent = false;
    /// What the colours mean (map, stretch, range and what shares it), written into the file's
    /// metadata: PNG text, SVG description, PDF subject.
    QString description;
};

/// The installed family a --font-family value stands for, or an empty string when there is none
/// (needs a QGuiApplication).
QString installedFontFamily(const QString& family);

/// The largest side of an exported image, in pixels: a 20000 × 20000 RGB image is 1.1 GiB.
inline constexpr int kMaxImageSide = 20000;

/// What one image file shows: its maps, each on its colour range, under an optional title, in a
/// grid of `columns` (0: as suits the count; a layers × heads figure has a row per layer). When
/// all ranges are equal, one colour bar stands beside the grid, so every panel is the same size.
struct FigureContent {
    std::vector<lesson::Heatmap> maps;
    std::vector<std::pair<double, double>> ranges;
    QString title;
    int columns = 0;
};
QByteArray renderFigure(const FigureContent& content, ImageFormat format,
                        const FigureOptions& figure);
QImage rasterFigure(const FigureContent& content, const FigureOptions& figure);

/// Paints a figure on a canvas of `logical` pixels (96-dpi units); `vector` for SVG and PDF.
using FigurePainter = std::function<void(QPainter& painter, QSizeF logical, bool vector)>;
/// Any figure as PNG, SVG or PDF at the figure's size and resolution, with its title and
/// description in the file's metadata: the one way every export becomes a file.
QByteArray renderPainting(const FigurePainter& paint, const QString& title, ImageFormat format,
                          const FigureOptions& figure);
QImage rasterPainting(const FigurePainter& paint, const QString& title,
                      const FigureOptions& figure);

/// Heatmaps on one colour range as an image file: one heatmap alone (title empty), or a grid
/// under a title. Exports use a fixed font, not the desktop's, so they look the same on every
/// machine; the app and `attnviz-cli export` both call this, so the same view gives the same
/// bytes.
QByteArray renderImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                       const QString& title, ImageFormat format, const FigureOptions& figure);

/// The raster form (the clipboard takes images, and PNG encoding runs apart from drawing).
QImage rasterImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                   const QString& title, const FigureOptions& figure);
QByteArray encodePng(const QImage& image);

/// Where the centre of a cell lands in the image renderImage makes of one heatmap (pixels), e.g.
/// to annotate an exported figure or to check it.
QPointF cellCentreInImage(const lesson::Heatmap& heatmap, std::pair<double, double> range,
                          const FigureOptions& figure, int row, int column);

/// Each panel of a figure laid out at the figure's size, exactly as the figure is drawn: what an
/// export checks (every cell drawn, every label that `--labels all` asks for) before drawing.
std::vector<HeatmapLayout> figurePanels(const FigureContent& content, const FigureOptions& figure);

/// Text as SVG's XML holds it, in an element or an attribute: & < > " ' as entities, and the
/// characters XML 1.0 forbids (control characters but tab and line breaks, lone surrogates,
/// U+FFFE, U+FFFF) dropped. The one escaping of every text an SVG export writes itself.
QString xmlEscaped(const QString& text);

/// The font of every export (DejaVu Sans, falling back per glyph to a CJK font for Chinese), or
/// the figure's choice.
QFont exportFont(const FigureOptions& figure = {});

} // namespace attnviz::render
