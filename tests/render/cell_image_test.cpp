// The cell image views keep between repaints, and its block-averaged form for thumbnails.
#include "render/colour_map.h"
#include "render/heatmap_painter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace attnviz::render {
namespace {

lesson::Heatmap heatmapOf(const std::vector<float>& values, int rows, int cols)
{
    lesson::Heatmap h;
    h.matrix.values = values.data();
    h.matrix.rows = rows;
    h.matrix.cols = cols;
    h.scale = lesson::ColourScale::Sequential;
    return h;
}

TEST(CellImage, OnePixelPerCellUpToTheLimit)
{
    const std::vector<float> values{0.0f, 0.25f, 0.5f, 1.0f, 0.75f, 0.125f};
    const QImage image = cellImage(heatmapOf(values, 2, 3), {0.0, 1.0}, QSize(128, 128));
    ASSERT_EQ(image.size(), QSize(3, 2));
    EXPECT_EQ(image.pixel(2, 1), colourOf(0.125, {0.0, 1.0}, lesson::ColourScale::Sequential));
}

TEST(CellImage, ThumbnailsAverageBlocksOfCells)
{
    // 300 × 200 cells → 128 × 128 pixels; the blocks are uneven (2 or 3 rows, 1 or 2 columns).
    const int rows = 300, cols = 200;
    std::vector<float> values(static_cast<std::size_t>(rows * cols));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            values[static_cast<std::size_t>(r * cols + c)] =
                static_cast<float>((r * 7 + c * 3) % 11) / 10.0f;
    const QImage image = cellImage(heatmapOf(values, rows, cols), {0.0, 1.0}, QSize(128, 128));
    ASSERT_EQ(image.size(), QSize(128, 128));
    for (const auto& [y, x] : {std::pair{0, 0}, {57, 99}, {127, 127}}) {
        double sum = 0;
        int n = 0;
        for (int r = y * rows / 128; r < (y + 1) * rows / 128; ++r)
            for (int c = 0; c < cols; ++c)
                if (c * 128 / cols == x) {
                    sum += values[static_cast<std::size_t>(r * cols + c)];
                    ++n;
                }
        ASSERT_GT(n, 0);
        EXPECT_EQ(
            image.pixel(x, y),
            colourOf(static_cast<float>(sum / n), {0.0, 1.0}, lesson::ColourScale::Sequential))
            << y << ", " << x;
    }
}

TEST(CellImage, EachSideIsLimitedOnItsOwn)
{
    // A view's cells are rarely square: 300 × 200 cells shown in 50 × 120 pixels.
    const int rows = 300, cols = 200;
    std::vector<float> values(static_cast<std::size_t>(rows * cols), 0.5f);
    const QImage wide = cellImage(heatmapOf(values, rows, cols), {0.0, 1.0}, QSize(50, 120));
    EXPECT_EQ(wide.size(), QSize(50, 120));
    const QImage tall = cellImage(heatmapOf(values, rows, cols), {0.0, 1.0}, QSize(400, 120));
    EXPECT_EQ(tall.size(), QSize(200, 120)); // never more than one pixel per cell
}

TEST(CellImage, BlockedCellsStayOutOfTheAverage)
{
    // A causal 256 × 256 map whose allowed weights are all 1: every pixel with any allowed cell
    // shows 1, never a blend with the blocked −∞.
    const int n = 256;
    std::vector<float> values(static_cast<std::size_t>(n * n));
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            values[static_cast<std::size_t>(r * n + c)] =
                c <= r ? 1.0f : -std::numeric_limits<float>::infinity();
    lesson::Heatmap h = heatmapOf(values, n, n);
    engine::AttentionMask causal;
    causal.causal = true;
    h.mask = std::make_shared<const engine::ResolvedMask>(causal, 1, n, n);
    const QImage image = cellImage(h, {0.0, 1.0}, QSize(128, 128));
    const QRgb one = colourOf(1.0, {0.0, 1.0}, lesson::ColourScale::Sequential);
    EXPECT_EQ(image.pixel(0, 0), one);
    EXPECT_EQ(image.pixel(60, 100), one);
    EXPECT_NE(image.pixel(100, 60), one); // all blocked: grey
}

} // namespace
} // namespace attnviz::render
