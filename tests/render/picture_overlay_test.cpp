// Attention drawn over a Vision Transformer's picture (#26): at full opacity each patch is the
// colour its weight has on the bar (0 to the row's largest patch weight), at opacity 0 the
// picture shows as it is, pixel blocks unsmoothed; the query's patch is outlined; the same
// overlay writes PNG, SVG (title escaped, patches as shapes) and PDF.
#include "render/gui_application.h"
#include "render/picture_overlay.h"

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

PictureOverlay twoByTwo()
{
    test::ensureGuiApplication();
    PictureOverlay o;
    o.picture = QImage(4, 4, QImage::Format_RGB888);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x)
            o.picture.setPixel(x, y, qRgb(40 * x, 50 * y, 200));
    o.attention.patchRows = 2;
    o.attention.patchColumns = 2;
    o.attention.patchSize = 2;
    o.attention.patches = {0.1, 0.4, 0.0, 0.2};
    o.attention.onFirstTokens = 0.3;
    o.title = QStringLiteral("layer 0 · head 1 · from [CLS] <&>");
    o.firstTokensNote = QStringLiteral("30 % on [CLS]");
    return o;
}

QImage raster(const PictureOverlay& o)
{
    FigureOptions figure;
    figure.size = {600, 500, 96};
    QImage image;
    image.loadFromData(renderPictureOverlay(o, ImageFormat::Png, figure), "PNG");
    return image.convertToFormat(QImage::Format_RGB32);
}

QPoint centreOf(const PictureOverlay& o, int row, int column)
{
    const QRectF p = pictureRect(o, QRectF(0, 0, 600, 500), exportFont());
    return QPointF(p.left() + (column + 0.5) * p.width() / 2,
                   p.top() + (row + 0.5) * p.height() / 2)
        .toPoint();
}

TEST(PictureOverlay, EachPatchTakesItsWeightsColourAtFullOpacity)
{
    PictureOverlay o = twoByTwo();
    o.opacity = 1;
    const QImage image = raster(o);
    Colouring colouring;
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
            const double w = o.attention.patches[static_cast<std::size_t>(r * 2 + c)];
            EXPECT_EQ(image.pixel(centreOf(o, r, c)) & 0xffffff,
                      colourOf(w, {0, 0.4}, lesson::ColourScale::Sequential, colouring) & 0xffffff)
                << r << "," << c;
        }
    EXPECT_EQ(o.range(), (std::pair<double, double>{0, 0.4}));
}

TEST(PictureOverlay, AtOpacityZeroThePictureShowsUnsmoothed)
{
    PictureOverlay o = twoByTwo();
    o.opacity = 0;
    const QImage image = raster(o);
    const QRectF p = pictureRect(o, QRectF(0, 0, 600, 500), exportFont());
    // The centre of each source pixel's block is that pixel's colour exactly.
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            const QPoint at =
                QPointF(p.left() + (x + 0.5) * p.width() / 4, p.top() + (y + 0.5) * p.height() / 4)
                    .toPoint();
            EXPECT_EQ(image.pixel(at) & 0xffffff, o.picture.pixel(x, y) & 0xffffff)
                << x << "," << y;
        }
}

TEST(PictureOverlay, ThePatchStepShowsThePictureUntintedWithoutABar)
{
    PictureOverlay o = twoByTwo();
    o.opacity = 1; // ignored without weights
    o.weights = false;
    const QImage image = raster(o);
    const QRectF p = pictureRect(o, QRectF(0, 0, 600, 500), exportFont());
    // The bottom-right pixel of the picture's block (3, 3) is the picture's own colour: no tint,
    // and no token number over it (numbers sit in each patch's top-left corner).
    const QPoint at =
        QPointF(p.left() + 3.5 * p.width() / 4, p.top() + 3.5 * p.height() / 4).toPoint();
    EXPECT_EQ(image.pixel(at) & 0xffffff, o.picture.pixel(3, 3) & 0xffffff);
    // No colour bar right of the picture.
    EXPECT_EQ(
        image.pixel(QPoint(static_cast<int>(p.right()) + 20, static_cast<int>(p.center().y()))) &
            0xffffff,
        0xffffffu);
}

TEST(PictureOverlay, TheQuerysPatchIsOutlined)
{
    PictureOverlay o = twoByTwo();
    o.opacity = 1;
    const QImage plain = raster(o);
    o.queryPatch = 3;
    const QImage marked = raster(o);
    const QRectF p = pictureRect(o, QRectF(0, 0, 600, 500), exportFont());
    // On the edge of patch (1, 1), not of patch (0, 0).
    const QPoint edge = QPointF(p.right() - 1, p.top() + 0.75 * p.height()).toPoint();
    const QPoint other = QPointF(p.left() + 1, p.top() + 0.25 * p.height()).toPoint();
    EXPECT_NE(marked.pixel(edge), plain.pixel(edge));
    EXPECT_EQ(marked.pixel(other), plain.pixel(other));
}

TEST(PictureOverlay, TheSameOverlayIsWrittenAsSvgAndPdf)
{
    const PictureOverlay o = twoByTwo();
    FigureOptions figure;
    const QByteArray svg = renderPictureOverlay(o, ImageFormat::Svg, figure);
    EXPECT_TRUE(svg.contains("<title>layer 0 · head 1 · from [CLS] &lt;&amp;&gt;</title>"))
        << svg.left(600).toStdString();
    EXPECT_FALSE(svg.contains("<&>"));
    // Each patch is a shape filled with its weight's colour, not part of an embedded image.
    Colouring colouring;
    for (const double w : o.attention.patches) {
        const QString fill =
            QColor::fromRgb(colourOf(w, o.range(), lesson::ColourScale::Sequential, colouring))
                .name();
        EXPECT_TRUE(svg.contains(("fill=\"" + fill + "\"").toLatin1())) << fill.toStdString();
    }
    const QByteArray pdf = renderPictureOverlay(o, ImageFormat::Pdf, figure);
    EXPECT_TRUE(pdf.startsWith("%PDF-"));
    EXPECT_GT(pdf.size(), 1000);
}

} // namespace
} // namespace attnviz::render
