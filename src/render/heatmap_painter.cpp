#include "render/heatmap_painter.h"

#include "render/colour_map.h"
#include "render/display_words.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <QPaintEngine>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

namespace attnviz::render {
namespace {

constexpr double kTurn = 0.70710678;

QColor textColour()
{
    return {30, 30, 30};
}

// Black or white, whichever reads better on `background`.
QColor contrastingText(QRgb background)
{
    const double luminance =
        0.299 * qRed(background) + 0.587 * qGreen(background) + 0.114 * qBlue(background);
    return luminance > 140 ? QColor(0, 0, 0) : QColor(255, 255, 255);
}

// The cells as vectors, small and without seams in any renderer: one path per colour, each
// row's runs of one colour merged into one rectangle, the colours painted in a fixed order, and
// every run reaching a little (a pixel, at most half a cell) under each neighbour painted after
// it — so where two colours meet, the later covers the earlier and no background shows through
// the antialiased edge (a "hairline seam").
void paintVectorCells(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h,
                      std::pair<double, double> range, const Colouring& colouring)
{
    const int rows = h.rows(), cols = h.cols();
    std::vector<QRgb> colour(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            colour[static_cast<std::size_t>(r) * cols + c] = h.blocked(r, c)
                ? blockedColour().rgb()
                : colourOf(h.value(r, c), range, h.scale, colouring);
    // The painting order of the colours: their order as numbers, which is fixed and total.
    std::map<QRgb, int> rank;
    for (const QRgb c : colour)
        rank.emplace(c, 0);
    int next = 0;
    for (auto& [c, order] : rank)
        order = next++;
    const auto at = [&](int r, int c) {
        return rank[colour[static_cast<std::size_t>(r) * cols + c]];
    };
    const auto later = [&](int r, int c, int own) {
        return r >= 0 && r < rows && c >= 0 && c < cols && at(r, c) > own;
    };
    // Drawn in cell units (one cell is 1 × 1), so a file holds short whole numbers, and each
    // run reaches a quarter of a cell under its later neighbours: at least a pixel whenever
    // vectors are used (cells of 4 pixels and more).
    constexpr double kReach = 0.25;
    std::vector<QPainterPath> paths(rank.size());
    for (QPainterPath& path : paths)
        path.setFillRule(Qt::WindingFill); // overlapping pieces of one colour add up, never cancel
    for (int r = 0; r < rows; ++r)
        for (int c0 = 0; c0 < cols;) {
            const int own = at(r, c0);
            int c1 = c0;
            while (c1 + 1 < cols && at(r, c1 + 1) == own)
                ++c1;
            QPainterPath& path = paths[static_cast<std::size_t>(own)];
            const double left = later(r, c0 - 1, own) ? c0 - kReach : c0;
            const double right = later(r, c1 + 1, own) ? c1 + 1 + kReach : c1 + 1;
            path.addRect(QRectF(left, r, right - left, 1));
            for (const int dr : {-1, 1})
                for (int c = c0; c <= c1;) {
                    if (!later(r + dr, c, own)) {
                        ++c;
                        continue;
                    }
                    int e = c;
                    while (e + 1 <= c1 && later(r + dr, e + 1, own))
                        ++e;
                    path.addRect(QRectF(c, dr < 0 ? r - kReach : r + 1, e + 1 - c, kReach));
                    c = e + 1;
                }
            c0 = c1 + 1;
        }
    const QRectF cells = layout.cells();
    p.save();
    p.translate(cells.topLeft());
    p.scale(cells.width() / cols, cells.height() / rows);
    p.setPen(Qt::NoPen);
    for (const auto& [c, order] : rank)
        p.fillPath(paths[static_cast<std::size_t>(order)], QColor(c));
    p.restore();
}

void paintCells(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h,
                std::pair<double, double> range, const HeatmapStyle& style, const QImage* cached)
{
    const QRectF cells = layout.cells();
    if (style.vectorCells) {
        paintVectorCells(p, layout, h, range, style.colouring);
        return;
    }
    const QImage own = cached ? QImage() : cellImage(h, range, {}, style.colouring);
    const QImage& image = cached ? *cached : own;
    // Each cell a crisp block when cells are larger than pixels; averaged when a large matrix is
    // drawn small, so a thumbnail shows the pattern rather than every n-th row. A PDF or SVG
    // holds every cell as one pixel and its viewer scales it: marked for nearest-neighbour
    // scaling, so zooming in shows cells, not a blur.
    const QPaintEngine* engine = p.paintEngine();
    const bool file =
        engine && (engine->type() == QPaintEngine::Pdf || engine->type() == QPaintEngine::SVG);
    const bool shrinking = cells.width() < h.cols() || cells.height() < h.rows();
    p.save();
    p.setRenderHint(QPainter::SmoothPixmapTransform, shrinking && !file);
    p.drawImage(cells, image);
    p.restore();
}

void paintValues(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h,
                 std::pair<double, double> range, const Colouring& colouring)
{
    // The labels' font where the cells hold it, else a smaller one down to 7 px (a model's
    // ten-token map beside another in a dialog); below that the numbers would not be read.
    QFont font = layout.tickFont();
    const QRectF first = layout.cellRect(0, 0);
    const auto fits = [&](const QFont& f) {
        const QFontMetricsF metrics(f);
        return first.height() >= metrics.height() &&
            first.width() >= metrics.horizontalAdvance(QStringLiteral("−0.00")) + 2;
    };
    for (int pixels = QFontInfo(font).pixelSize(); !fits(font) && pixels > 7;)
        font.setPixelSize(--pixels);
    if (!fits(font))
        return;
    p.setFont(font);
    for (int r = 0; r < h.rows(); ++r)
        for (int c = 0; c < h.cols(); ++c) {
            if (h.blocked(r, c))
                continue;
            const double v = h.value(r, c);
            p.setPen(contrastingText(colourOf(v, range, h.scale, colouring)));
            p.drawText(layout.cellRect(r, c), Qt::AlignCenter, cellValueText(v));
        }
}

// Σ over each shown row, in the column the layout reserved; blocked cells add nothing.
void paintRowSums(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h)
{
    const QRectF column = layout.rowSums();
    p.setFont(layout.tickFont());
    p.setPen(textColour());
    const QFontMetricsF metrics(layout.tickFont());
    p.drawText(QRectF(column.left(), column.top() - metrics.height() - 2, column.width(),
                      metrics.height()),
               Qt::AlignCenter, QStringLiteral("Σ"));
    for (const HeatmapLayout::Label& label : layout.rowLabels()) {
        const QRectF row = layout.cellRect(label.index, 0);
        p.drawText(QRectF(column.left(), row.top(), column.width(), row.height()),
                   Qt::AlignVCenter | Qt::AlignRight,
                   formatFixed(lesson::rowSum(h, label.index), 3));
    }
}

void paintHighlight(QPainter& p, const HeatmapLayout& layout, const Highlight& mark)
{
    QRectF rect;
    if (mark.kind == Highlight::Kind::Row && mark.row >= 0 && mark.row < layout.rows())
        rect = layout.cellRect(mark.row, 0).united(layout.cellRect(mark.row, layout.columns() - 1));
    else if (mark.kind == Highlight::Kind::Column && mark.column >= 0 &&
             mark.column < layout.columns())
        rect =
            layout.cellRect(0, mark.column).united(layout.cellRect(layout.rows() - 1, mark.column));
    else if (mark.row >= 0 && mark.row < layout.rows() && mark.column >= 0 &&
             mark.column < layout.columns())
        rect = layout.cellRect(mark.row, mark.column);
    if (rect.isNull())
        return;
    // A dark outline inside a light one stays visible on every colour of both scales.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(255, 255, 255), 5));
    p.drawRect(rect);
    p.setPen(QPen(QColor(0, 0, 0), 2.5));
    p.drawRect(rect);
}

// The cells a user blocked by hand: hatched over their value (the scores before the mask still
// show what was computed) and outlined, on every score-shaped step.
void paintDrawnCells(QPainter& p, const HeatmapLayout& layout,
                     const std::set<std::pair<int, int>>& cells)
{
    p.save();
    for (const auto& [row, column] : cells) {
        if (row < 0 || row >= layout.rows() || column < 0 || column >= layout.columns())
            continue;
        const QRectF rect = layout.cellRect(row, column);
        p.setPen(Qt::NoPen);
        p.setBrush(QBrush(QColor(0, 0, 0, 150), Qt::BDiagPattern));
        p.drawRect(rect);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(255, 255, 255), 3));
        p.drawRect(rect.adjusted(1, 1, -1, -1));
        p.setPen(QPen(QColor(176, 0, 32), 1.5));
        p.drawRect(rect.adjusted(1, 1, -1, -1));
    }
    p.restore();
}

void paintBands(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h)
{
    const QRectF area = layout.bands();
    const double perColumn = area.width() / std::max(h.cols(), 1);
    p.setFont(layout.tickFont());
    const QFontMetricsF metrics(layout.tickFont());
    for (const lesson::Heatmap::Band& band : h.columnBands) {
        const QRectF rect(area.left() + band.first * perColumn, area.top(), band.count * perColumn,
                          area.height());
        const QColor colour = headColour(band.sharedBy ? band.head * band.sharedBy : band.head);
        p.fillRect(rect.adjusted(0.5, 0, -0.5, 0), colour);
        // The head's number on its band, where there is room: the legend that ties colours to
        // heads.
        const QString label =
            (band.sharedBy ? QStringLiteral("KV") : QString()) + QString::number(band.head);
        if (metrics.horizontalAdvance(label) + 2 < rect.width() &&
            metrics.height() <= rect.height() + 4) {
            p.setPen(contrastingText(colour.rgb()));
            p.drawText(rect, Qt::AlignCenter, label);
        }
    }
}

void paintLabels(QPainter& p, const HeatmapLayout& layout)
{
    const QRectF cells = layout.cells();
    const QFontMetricsF metrics(layout.tickFont());
    p.setFont(layout.tickFont());
    p.setPen(textColour());
    for (const HeatmapLayout::Label& label : layout.rowLabels()) {
        const QRectF cell = layout.cellRect(label.index, 0);
        const QRectF rect(cells.left() - 4 - layout.rowLabelWidth(),
                          cell.center().y() - metrics.height() / 2, layout.rowLabelWidth(),
                          metrics.height());
        p.drawText(rect, Qt::AlignRight | Qt::AlignVCenter, label.text);
    }
    for (const HeatmapLayout::Label& label : layout.columnLabels()) {
        const QPointF anchor(layout.cellRect(0, label.index).center().x(), cells.bottom() + 3);
        const double width = metrics.horizontalAdvance(label.text);
        if (!layout.columnLabelsTurned()) {
            p.drawText(QRectF(anchor.x() - width / 2 - 1, anchor.y(), width + 2, metrics.height()),
                       Qt::AlignCenter, label.text);
            continue;
        }
        // Turned 45°, ending at the column it names.
        p.save();
        p.translate(anchor.x() + metrics.height() * kTurn / 2, anchor.y());
        p.rotate(-45);
        p.drawText(QRectF(-width, 0, width, metrics.height()), Qt::AlignRight | Qt::AlignTop,
                   label.text);
        p.restore();
    }
}

void paintAxisTitles(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h)
{
    p.setFont(layout.axisFont());
    p.setPen(textColour());
    p.drawText(layout.columnAxisTitle(), Qt::AlignCenter, displayed(h.matrix.columnAxis));
    const QRectF row = layout.rowAxisTitle();
    p.save();
    p.translate(row.center());
    p.rotate(-90);
    p.drawText(QRectF(-row.height() / 2, -row.width() / 2, row.height(), row.width()),
               Qt::AlignCenter, displayed(h.matrix.rowAxis));
    p.restore();
}

void paintColourBarAt(QPainter& p, QRectF bar, const std::vector<double>& ticks,
                      const QFont& tickFont, lesson::ColourScale scale,
                      std::pair<double, double> range, const Colouring& colouring)
{
    // The map's 256 levels, top to bottom, whatever the stretch: the ticks carry the values.
    const lesson::Stretch stretch =
        scale == lesson::ColourScale::Sequential ? colouring.stretch : lesson::Stretch::Linear;
    QImage strip(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i)
        strip.setPixel(0, i,
                       colourOf(lesson::valueAtBarPosition((255.5 - i) / 256.0, range, scale,
                                                           stretch, colouring.gamma),
                                range, scale, colouring));
    p.save();
    p.setRenderHint(QPainter::SmoothPixmapTransform, true);
    p.drawImage(bar, strip);
    p.restore();
    p.setPen(QPen(QColor(120, 120, 120), 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    const QFontMetricsF metrics(tickFont);
    p.setFont(tickFont);
    p.setPen(textColour());
    for (const double t : ticks) {
        const double y = bar.bottom() -
            lesson::barPosition(t, range, scale, stretch, colouring.gamma) * bar.height();
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
        p.drawText(QRectF(bar.right() + 5, y - metrics.height() / 2, 200, metrics.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, formatValue(t));
    }
}

} // namespace

void paintColourBar(QPainter& p, QRectF area, lesson::ColourScale scale,
                    std::pair<double, double> range, const HeatmapStyle& style)
{
    const QFont tick = HeatmapLayout::tickFontOf(style.font);
    const double line = QFontMetricsF(tick).height();
    const lesson::Stretch stretch = scale == lesson::ColourScale::Sequential
        ? style.colouring.stretch
        : lesson::Stretch::Linear;
    const QRectF bar(area.left() + 8, area.top() + line, 12, area.height() - 2 * line);
    paintColourBarAt(p, bar, colourBarTicks(range, stretch), tick, scale, range, style.colouring);
}

double colourBarWidth(std::pair<double, double> range, const HeatmapStyle& style,
                      lesson::ColourScale scale)
{
    const QFont tick = HeatmapLayout::tickFontOf(style.font);
    const QFontMetricsF metrics(tick);
    double widest = 0;
    for (const double t :
         colourBarTicks(range,
                        scale == lesson::ColourScale::Sequential ? style.colouring.stretch
                                                                 : lesson::Stretch::Linear))
        widest = std::max(widest, metrics.horizontalAdvance(formatValue(t)));
    return 8 + 12 + 5 + widest + 4;
}

QImage cellImage(const lesson::Heatmap& h, std::pair<double, double> range, QSize limit,
                 const Colouring& colouring)
{
    const QRgb blocked = blockedColour().rgb();
    const int rows = limit.height() > 0 ? std::min(h.rows(), limit.height()) : h.rows();
    const int cols = limit.width() > 0 ? std::min(h.cols(), limit.width()) : h.cols();
    QImage image(std::max(cols, 1), std::max(rows, 1), QImage::Format_RGB32);
    // The mask's row once per row, not a lookup per cell: a 1024 × 1024 map has a million.
    // Rows of a slice start part-way into the mask's: its offsets are added to the row and
    // taken off the run of allowed keys (the explicit mask's bytes move with it).
    const auto maskRow = [&](int r) {
        if (!h.mask)
            return engine::ResolvedMask::Row{0, h.cols(), nullptr};
        engine::ResolvedMask::Row row = h.mask->row(h.maskBatch, r + h.maskRowOffset);
        row.start -= h.maskColumnOffset;
        row.limit -= h.maskColumnOffset;
        if (row.allowed)
            row.allowed += h.maskColumnOffset;
        return row;
    };
    if (rows == h.rows() && cols == h.cols()) {
        for (int r = 0; r < h.rows(); ++r) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
            const engine::ResolvedMask::Row mask = maskRow(r);
            const float* values = h.matrix.values + static_cast<std::size_t>(r) * h.cols();
            for (int c = 0; c < h.cols(); ++c)
                line[c] = mask.blocks(c) ? blocked : colourOf(values[c], range, h.scale, colouring);
        }
        return image;
    }
    // Pixel (y, x) averages the cells [y·R/rows, (y+1)·R/rows) × [x·C/cols, (x+1)·C/cols),
    // each bound rounded up. A pixel's columns are summed as one run, clipped to the keys the
    // mask's row allows: a grid of 32 maps of a million cells is averaged at every new layer.
    std::vector<int> firstColumn(static_cast<std::size_t>(cols) + 1);
    for (int x = 0; x <= cols; ++x)
        firstColumn[static_cast<std::size_t>(x)] =
            static_cast<int>((static_cast<std::int64_t>(x) * h.cols() + cols - 1) / cols);
    std::vector<double> sum(static_cast<std::size_t>(cols));
    std::vector<std::int64_t> count(static_cast<std::size_t>(cols));
    for (int y = 0; y < rows; ++y) {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(count.begin(), count.end(), 0);
        const int first = static_cast<int>(static_cast<std::int64_t>(y) * h.rows() / rows);
        const int last = static_cast<int>(static_cast<std::int64_t>(y + 1) * h.rows() / rows);
        for (int r = first; r < last; ++r) {
            const engine::ResolvedMask::Row mask = maskRow(r);
            const float* values = h.matrix.values + static_cast<std::size_t>(r) * h.cols();
            for (int x = 0; x < cols; ++x) {
                const auto i = static_cast<std::size_t>(x);
                const std::int64_t from = std::max<std::int64_t>(firstColumn[i], mask.start);
                const std::int64_t to = std::min<std::int64_t>(firstColumn[i + 1], mask.limit);
                double run = 0;
                std::int64_t n = 0;
                if (mask.allowed) {
                    for (std::int64_t c = from; c < to; ++c)
                        if (mask.allowed[c]) {
                            run += values[c];
                            ++n;
                        }
                } else {
                    for (std::int64_t c = from; c < to; ++c)
                        run += values[c];
                    n = std::max<std::int64_t>(to - from, 0);
                }
                sum[i] += run;
                count[i] += n;
            }
        }
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < cols; ++x) {
            const auto i = static_cast<std::size_t>(x);
            line[x] = count[i]
                ? colourOf(static_cast<float>(sum[i] / static_cast<double>(count[i])), range,
                           h.scale, colouring)
                : blocked;
        }
    }
    return image;
}

void paintHeatmap(QPainter& p, const HeatmapLayout& layout, const lesson::Heatmap& h,
                  std::pair<double, double> range, const HeatmapStyle& style, const QImage* cells)
{
    p.save();
    if (style.background)
        p.fillRect(layout.area(), Qt::white);
    if (!layout.title().isNull()) {
        p.setFont(layout.titleFont());
        p.setPen(h.head >= 0 && style.headFrame ? headColour(h.head).darker(150) : textColour());
        p.drawText(layout.title(), Qt::AlignCenter | Qt::TextWordWrap, layout.titleText());
    }
    if (!layout.bands().isNull())
        paintBands(p, layout, h);
    if (h.rows() > 0 && h.cols() > 0) {
        paintCells(p, layout, h, range, style, cells);
        if (style.valuesInCells)
            paintValues(p, layout, h, range, style.colouring);
        if (!layout.rowSums().isNull())
            paintRowSums(p, layout, h);
    }
    if (h.head >= 0 && style.headFrame) {
        // A white ring between the cells and the head's colour: a blue head on blue cells keeps
        // its frame.
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(Qt::white, 2));
        p.drawRect(layout.cells().adjusted(-1, -1, 1, 1));
        p.setPen(QPen(headColour(h.head), 2.5));
        p.drawRect(layout.cells().adjusted(-3, -3, 3, 3));
    }
    if (!style.drawnCells.empty())
        paintDrawnCells(p, layout, style.drawnCells);
    if (style.highlight)
        paintHighlight(p, layout, *style.highlight);
    paintLabels(p, layout);
    paintAxisTitles(p, layout, h);
    if (style.colourBar && !layout.colourBar().isNull())
        paintColourBarAt(p, layout.colourBar(), layout.ticks(), layout.tickFont(), h.scale, range,
                         style.colouring);
    p.restore();
}

} // namespace attnviz::render
