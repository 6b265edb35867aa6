// Chinese tokens draw as themselves in every export (#13): the export font falls back to the CJK
// font the project installs (fonts-wqy-microhei). Were no font to have the glyphs, every
// character would draw as the same empty box, so two different characters would draw alike.
#include "gui_application.h"
#include "render/image_export.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

class CjkText : public ::testing::Test {
protected:
    static void SetUpTestSuite() { test::ensureGuiApplication(); }
};

QImage drawn(const QString& text)
{
    QImage image(64, 64, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    QFont font = exportFont();
    font.setPixelSize(40);
    p.setFont(font);
    p.setPen(Qt::black);
    p.drawText(image.rect(), Qt::AlignCenter, text);
    return image;
}

int inkOf(const QImage& image)
{
    int ink = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            ink += qGray(image.pixel(x, y)) < 128 ? 1 : 0;
    return ink;
}

TEST_F(CjkText, DifferentCharactersDrawDifferently)
{
    const QImage attention = drawn(QStringLiteral("注")), meaning = drawn(QStringLiteral("意"));
    EXPECT_GT(inkOf(attention), 40);
    EXPECT_GT(inkOf(meaning), 40);
    EXPECT_NE(attention, meaning) << "no font with CJK glyphs: install fonts-wqy-microhei";
    EXPECT_NE(drawn(QStringLiteral("头")), drawn(QStringLiteral("键")));
}

TEST_F(CjkText, AChineseTokenIsAsWideAsItsCharacters)
{
    QFont font = exportFont();
    font.setPixelSize(20);
    const QFontMetricsF metrics(font);
    // Full-width characters: about one em each, not zero and not a narrow fallback box.
    EXPECT_GT(metrics.horizontalAdvance(QStringLiteral("注意力")), 45.0);
}

} // namespace
} // namespace attnviz::render
