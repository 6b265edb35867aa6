#include "render/image_export.h"

#include "render/heatmap_grid.h"
#include "render/heatmap_layout.h"

#include <QBuffer>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <cmath>
#include <map>

namespace attnviz::render {
namespace {

// Up to this many cells, vector exports draw each cell as a rectangle (crisp in any viewer);
// beyond, one embedded image keeps the file small.
constexpr int kVectorCells = 128 * 128;

HeatmapStyle exportStyle(const std::vector<lesson::Heatmap>& maps, bool vector,
                         const FigureOptions& figure)
{
    HeatmapStyle style;
    style.font = exportFont(figure);
    int cells = 0;
    for (const lesson::Heatmap& m : maps)
        cells = std::max(cells, m.rows() * m.cols());
    style.vectorCells = vector && cells <= kVectorCells;
    style.colouring = figure.colouring;
    style.labels = figure.labels;
    style.headFrame = figure.headFrame;
    style.spaceMarks = figure.spaceMarks;
    style.background = !figure.transparent;
    return style;
}

QFont titleFont(const FigureOptions& figure)
{
    QFont font = exportFont(figure);
    font.setBold(true);
    font.setPixelSize(static_cast<int>(std::lround(font.pixelSize() * 16.0 / 13.0)));
    return font;
}

// The band a figure's title takes at the top (none without a title): wrapped, never cut, as
// tall as the title needs.
QRectF titleBand(QSizeF logical, const QString& title, const FigureOptions& figure)
{
    if (title.isEmpty())
        return {};
    const QRectF needed = QFontMetricsF(titleFont(figure))
                              .boundingRect(QRectF(8, 0, logical.width() - 16, 1e6),
                                            Qt::AlignCenter | Qt::TextWordWrap, visibleText(title));
    return QRectF(8, 0, logical.width() - 16, std::max(32.0, needed.height() + 12));
}

// The grid under the title: a figure's panels and its colour bar.
QRectF gridArea(QSizeF logical, const FigureContent& content, const FigureOptions& figure)
{
    const double top = titleBand(logical, content.title, figure).height();
    return QRectF(0, top, logical.width(), logical.height() - top);
}

GridStyle figureGrid(const FigureContent& content)
{
    GridStyle grid;
    grid.columns = content.columns;
    grid.barBesideGrid = true;
    return grid;
}

// Draws on a canvas of `logical` pixels (96 dpi units).
void paintFigure(QPainter& painter, QSizeF logical, const FigureContent& content, bool vector,
                 const FigureOptions& figure)
{
    if (!figure.transparent)
        painter.fillRect(QRectF(QPointF(0, 0), logical), Qt::white);
    if (const QRectF band = titleBand(logical, content.title, figure); !band.isEmpty()) {
        painter.setFont(titleFont(figure));
        painter.setPen(Qt::black);
        painter.drawText(band, Qt::AlignCenter | Qt::TextWordWrap, visibleText(content.title));
    }
    paintGrid(painter, gridArea(logical, content, figure), content.maps, content.ranges,
              exportStyle(content.maps, vector, figure), figureGrid(content));
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

// A PDF's XMP packet with the title and the description (dc:description): where a PDF keeps
// what its colours mean, as a PNG keeps it in a text chunk and an SVG in <desc>.
QByteArray xmpDescription(const QString& title, const QString& description)
{
    return QStringLiteral(
               "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>"
               "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
               "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
               "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/'>"
               "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>%1</rdf:li></rdf:Alt></dc:title>"
               "<dc:description><rdf:Alt><rdf:li xml:lang='x-default'>%2</rdf:li></rdf:Alt>"
               "</dc:description><dc:creator><rdf:Seq><rdf:li>AttnViz</rdf:li></rdf:Seq>"
               "</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>"
               "<?xpacket end='w'?>")
        .arg(xmlEscaped(visibleText(title)), xmlEscaped(visibleText(description)))
        .toUtf8();
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

QString installedFontFamily(const QString& family)
{
    // The generic names stand for fonts tools/install-deps.sh installs, so a figure looks the
    // same on every machine.
    static const std::map<QString, QString> generic{
        {QStringLiteral("sans"), QStringLiteral("DejaVu Sans")},
        {QStringLiteral("serif"), QStringLiteral("DejaVu Serif")},
        {QStringLiteral("mono"), QStringLiteral("DejaVu Sans Mono")},
        {QStringLiteral("latex"), QStringLiteral("CMU Serif")},
    };
    const auto it = generic.find(family.toLower());
    const QString wanted = it == generic.end() ? family : it->second;
    for (const QString& installed : QFontDatabase::families())
        if (installed.compare(wanted, Qt::CaseInsensitive) == 0)
            return installed;
    return {};
}

QFont exportFont(const FigureOptions& figure)
{
    const QString family = installedFontFamily(figure.fontFamily);
    QFont font(family.isEmpty() ? QStringLiteral("DejaVu Sans") : family);
    font.setPixelSize(std::max(1, static_cast<int>(std::lround(figure.fontPoints * 96.0 / 72.0))));
    return font;
}

std::vector<HeatmapLayout> figurePanels(const FigureContent& content, const FigureOptions& figure)
{
    const QSizeF logical = logicalSize(figure.size);
    const GridPlan plan = planGrid(gridArea(logical, content, figure), content.maps, content.ranges,
                                   exportStyle(content.maps, false, figure), figureGrid(content));
    std::vector<HeatmapLayout> panels;
    panels.reserve(plan.panels.size());
    for (std::size_t i = 0; i < plan.panels.size(); ++i)
        panels.emplace_back(content.maps[i], content.ranges[i], plan.panels[i].area,
                            plan.panels[i].style);
    return panels;
}

QImage rasterImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                   const QString& title, const FigureOptions& figure)
{
    return rasterFigure({maps, std::vector(maps.size(), range), title}, figure);
}

QByteArray renderImage(const std::vector<lesson::Heatmap>& maps, std::pair<double, double> range,
                       const QString& title, ImageFormat format, const FigureOptions& figure)
{
    return renderFigure({maps, std::vector(maps.size(), range), title}, format, figure);
}

namespace {

// The document title of a figure: its own, or its one map's.
QString figureTitle(const FigureContent& content)
{
    return content.title.isEmpty() && !content.maps.empty()
        ? QString::fromStdString(content.maps.front().title)
        : content.title;
}

FigurePainter figurePainter(const FigureContent& content, const FigureOptions& figure)
{
    return [&content, &figure](QPainter& painter, QSizeF logical, bool vector) {
        paintFigure(painter, logical, content, vector, figure);
    };
}

} // namespace

std::optional<ImageFormat> imageFormatOfExtension(std::string_view extension)
{
    if (extension.starts_with('.'))
        extension.remove_prefix(1);
    const QString e =
        QString::fromUtf8(extension.data(), static_cast<qsizetype>(extension.size())).toLower();
    if (e == QLatin1String("png"))
        return ImageFormat::Png;
    if (e == QLatin1String("svg"))
        return ImageFormat::Svg;
    if (e == QLatin1String("pdf"))
        return ImageFormat::Pdf;
    return std::nullopt;
}

QImage rasterFigure(const FigureContent& content, const FigureOptions& figure)
{
    return rasterPainting(figurePainter(content, figure), figureTitle(content), figure);
}

QByteArray renderFigure(const FigureContent& content, ImageFormat format,
                        const FigureOptions& figure)
{
    return renderPainting(figurePainter(content, figure), figureTitle(content), format, figure);
}

QImage rasterPainting(const FigurePainter& paint, const QString& title, const FigureOptions& figure)
{
    const ImageSize size = figure.size;
    // Opaque RGB unless the figure is for a slide's own background: a quarter less to compress.
    QImage image(size.width, size.height,
                 figure.transparent ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB888);
    image.fill(figure.transparent ? Qt::transparent : Qt::white);
    const int dotsPerMeter = static_cast<int>(std::lround(size.dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(size.dpi / 96.0, size.dpi / 96.0);
    paint(painter, logicalSize(size), false);
    painter.end();
    if (!figure.description.isEmpty())
        image.setText(QStringLiteral("Description"), figure.description);
    if (!title.isEmpty())
        image.setText(QStringLiteral("Title"), visibleText(title));
    image.setText(QStringLiteral("Software"), QStringLiteral("AttnViz"));
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

QByteArray renderPainting(const FigurePainter& paint, const QString& title, ImageFormat format,
                          const FigureOptions& figure)
{
    const ImageSize size = figure.size;
    if (format == ImageFormat::Png)
        return encodePng(rasterPainting(paint, title, figure));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    // The visible form has no control character, which neither SVG nor PDF's XML metadata may
    // hold; Qt escapes the rest of the PDF's.
    const QString documentTitle = visibleText(title);
    if (format == ImageFormat::Svg) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(size.width, size.height));
        svg.setViewBox(QRect(0, 0, size.width, size.height));
        svg.setResolution(size.dpi);
        svg.setTitle(xmlEscaped(documentTitle)); // QSvgGenerator writes it as given
        svg.setDescription(xmlEscaped(visibleText(figure.description)));
        QPainter painter(&svg);
        painter.setRenderHint(QPainter::LosslessImageRendering);
        paint(painter, QSizeF(size.width, size.height), true);
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
    if (!figure.description.isEmpty())
        pdf.setDocumentXmpMetadata(xmpDescription(documentTitle, figure.description));
    QPainter painter(&pdf);
    // Qt's PDF engine stores images as JPEG unless told otherwise: a weight of 1.0 came out pale
    // green, with halos along a causal diagonal.
    painter.setRenderHint(QPainter::LosslessImageRendering);
    painter.scale(size.dpi / 96.0, size.dpi / 96.0);
    paint(painter, logicalSize(size), true);
    painter.end();
    return bytes;
}

QPointF cellCentreInImage(const lesson::Heatmap& heatmap, std::pair<double, double> range,
                          const FigureOptions& figure, int row, int column)
{
    const std::vector<HeatmapLayout> panels = figurePanels({{heatmap}, {range}, {}, 1}, figure);
    return panels.front().cellCentre(row, column) * (figure.size.dpi / 96.0);
}

} // namespace attnviz::render
