#include "render/heatmap_layout.h"

#include "render/display_words.h"

#include <QFontMetricsF>
#include <QHash>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

namespace attnviz::render {
namespace {

constexpr double kPad = 4;
constexpr double kBarWidth = 12;
constexpr double kTurn = 0.70710678; // sin 45° = cos 45°

QFont scaled(const QFont& base, double factor)
{
    QFont f = base;
    // Fonts are sized in points on screen and in pixels in exports; scale whichever is set.
    if (base.pixelSize() > 0)
        f.setPixelSize(std::max(1, static_cast<int>(std::lround(base.pixelSize() * factor))));
    else
        f.setPointSizeF(base.pointSizeF() * factor);
    return f;
}

// A label as drawn: elided to the room labels get, and its width.
struct MeasuredLabel {
    QString text;
    double width;
};

// Measuring a label is text shaping, most of the time of laying out a map of a thousand tokens,
// and a layer's 32 heads lay out the same tokens, each in two passes. So each thread keeps the
// measurements made with each font and label width (a switch of layer lays out every view again
// with the same ones), all forgotten past 100,000 labels.
class LabelMeasures {
public:
    using Measured = std::unordered_map<std::string, MeasuredLabel>;

    // The measurements made with `font` shown as `metrics` measures it (the height tells a
    // screen of another resolution apart), labels elided to `maxWidth`.
    Measured& with(const QFont& font, const QFontMetricsF& metrics, double maxWidth,
                   bool spaceMarks)
    {
        if (m_count > kMaxLabels) {
            m_measured.clear();
            m_count = 0;
        }
        return m_measured[QStringLiteral("%1|%2|%3|%4")
                              .arg(font.key())
                              .arg(metrics.height())
                              .arg(maxWidth)
                              .arg(spaceMarks)];
    }

    const MeasuredLabel& of(Measured& measured, const std::string& label,
                            const QFontMetricsF& metrics, double maxWidth, bool spaceMarks)
    {
        if (const auto found = measured.find(label); found != measured.end())
            return found->second;
        ++m_count;
        const QString text = metrics.elidedText(
            visibleToken(QString::fromStdString(label), spaceMarks), Qt::ElideRight, maxWidth);
        return measured.emplace(label, MeasuredLabel{text, metrics.horizontalAdvance(text)})
            .first->second;
    }

private:
    static constexpr std::size_t kMaxLabels = 100000;
    QHash<QString, Measured> m_measured;
    std::size_t m_count = 0;
};

// Every `step`-th label of `labels`, elided to `maxWidth`; returns the widest shown.
double pickLabels(const std::vector<std::string>& labels, int count, int step, const QFont& font,
                  double maxWidth, bool spaceMarks, std::vector<HeatmapLayout::Label>& out)
{
    out.clear();
    if (step <= 0)
        return 0; // no labels
    thread_local LabelMeasures measures;
    const QFontMetricsF metrics(font);
    LabelMeasures::Measured& measured = measures.with(font, metrics, maxWidth, spaceMarks);
    double widest = 0;
    for (int i = 0; i < count; i += step) {
        if (i < static_cast<int>(labels.size())) {
            const MeasuredLabel& label = measures.of(measured, labels[static_cast<std::size_t>(i)],
                                                     metrics, maxWidth, spaceMarks);
            widest = std::max(widest, label.width);
            out.push_back({i, label.text});
        } else {
            const QString text = metrics.elidedText(QString::number(i), Qt::ElideRight, maxWidth);
            widest = std::max(widest, metrics.horizontalAdvance(text));
            out.push_back({i, text});
        }
    }
    return widest;
}

// How many rows or columns one label stands for: the smallest step at which `count` labels of
// size `each` fit in `room` — never fewer labels than fit. Every one for LabelMode::All (the
// export checks they fit), none (0) for None.
int stepFor(int count, double room, double each, LabelMode mode)
{
    if (mode == LabelMode::None)
        return 0;
    if (count <= 1 || mode == LabelMode::All)
        return 1;
    const double needed = room > 0 ? count * each / room : count;
    return static_cast<int>(std::clamp(std::ceil(needed - 1e-9), 1.0, static_cast<double>(count)));
}

void appendVisible(QString& shown, QChar c)
{
    if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ||
        c.unicode() >= 0xfffe)
        shown += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
    else
        shown += c;
}

} // namespace

QString visibleToken(const QString& token, bool spaceMarks)
{
    QString shown;
    for (const QChar c : token) {
        // Tokens arrive spelled with ␣ for a space (docs/trace-format.md); without marks, a
        // figure draws it as the space it stands for.
        if (c == QLatin1Char(' ') || c == QChar(0x2423))
            shown += spaceMarks ? QChar(0x2423) : QChar(' ');
        else if (c == QLatin1Char('\n'))
            shown += QChar(0x21B5); // ↵
        else if (c == QLatin1Char('\t'))
            shown += QChar(0x21E5); // ⇥
        else
            appendVisible(shown, c);
    }
    return shown.isEmpty() ? QStringLiteral("∅") : shown;
}

QString visibleText(const QString& text)
{
    QString shown;
    for (const QChar c : text)
        appendVisible(shown, c);
    return shown;
}

QString formatValue(double value, int significant)
{
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    if (std::isnan(value))
        return QStringLiteral("NaN");
    // −0.0 (a difference that cancelled) is 0.
    QString s = QString::number(value == 0 ? 0.0 : value, 'g', significant);
    if (s.startsWith(QLatin1Char('-')))
        s.replace(0, 1, QStringLiteral("−"));
    return s;
}

QString formatFixed(double value, int decimals)
{
    const double half = 0.5 * std::pow(10.0, -decimals);
    return QString::number(std::abs(value) < half ? 0.0 : value, 'f', decimals);
}

QString cellValueText(double v)
{
    const double size = std::abs(v);
    if (!std::isfinite(v))
        return formatValue(v);
    if (size < 0.005)
        return QStringLiteral("0");
    QString s = size < 10 ? QString::number(v, 'f', 2)
        : size < 100      ? QString::number(v, 'f', 1)
                          : QString::number(v, 'g', 3);
    if (s.startsWith(QLatin1Char('-')))
        s.replace(0, 1, QStringLiteral("−"));
    return s;
}

std::vector<double> colourBarTicks(std::pair<double, double> range, lesson::Stretch stretch)
{
    if (stretch == lesson::Stretch::Log && range.first > 0 && range.second > range.first) {
        // Powers of ten, with 2 and 5 between them when the range spans fewer than three.
        const double decades = std::log10(range.second) - std::log10(range.first);
        // Every decade, or every n-th where a range spans hundreds of them.
        const double every = std::max(1.0, std::ceil((decades + 1) / kMaxColourBarTicks));
        std::vector<double> ticks;
        for (double p = std::floor(std::log10(range.first));
             p <= std::ceil(std::log10(range.second)); p += every)
            for (const double m :
                 decades < 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
                const double t = m * std::pow(10.0, p);
                if (t >= range.first * (1 - 1e-9) && t <= range.second * (1 + 1e-9))
                    ticks.push_back(t);
            }
        if (ticks.size() >= 2)
            return ticks;
    }
    const double span = range.second - range.first;
    if (!(span > 0) || !std::isfinite(span))
        return {range.first};
    const double raw = span / 4;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * magnitude) {
            step = m * magnitude;
            break;
        }
    // The k-th tick from the first, never a running sum: below half an ulp of the ends a step
    // would leave a sum where it was. At most kMaxColourBarTicks, each above the last.
    const double first = std::ceil(range.first / step) * step;
    std::vector<double> ticks;
    for (int k = 0; k < kMaxColourBarTicks; ++k) {
        const double t = first + k * step;
        if (t > range.second + step * 1e-9 || (!ticks.empty() && !(t > ticks.back())))
            break;
        ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    }
    if (ticks.empty())
        ticks.push_back(range.first);
    return ticks;
}

QFont HeatmapLayout::tickFontOf(const QFont& font)
{
    return scaled(font, 0.85);
}

HeatmapLayout::HeatmapLayout(const lesson::Heatmap& h, std::pair<double, double> range, QRectF area,
                             const HeatmapStyle& style)
    : m_area(area)
    , m_rows(h.rows())
    , m_columns(h.cols())
    , m_titleFont(style.font)
    , m_tickFont(tickFontOf(style.font))
    , m_axisFont(style.font)
{
    m_titleFont.setBold(true);
    const QFontMetricsF axis(m_axisFont);
    const double axisLine = axis.height();
    const bool labelled = style.labels != LabelMode::None;
    // A title is never cut: it wraps onto up to three lines, and shrinks (to 60 %) only when even
    // three are not enough; the last resort, a title longer than all that, is elided.
    m_titleText = visibleText(displayed(h.title));
    double titleHeight = 0;
    if (!m_titleText.isEmpty()) {
        const QFont base = m_titleFont;
        const double width = area.width() - 2 * kPad;
        for (double factor = 1.0;; factor -= 0.1) {
            m_titleFont = scaled(base, factor);
            const QFontMetricsF metrics(m_titleFont);
            const QRectF needed = metrics.boundingRect(
                QRectF(0, 0, width, 1e6), Qt::AlignCenter | Qt::TextWordWrap, m_titleText);
            if ((needed.height() <= 3 * metrics.lineSpacing() + 1 && needed.width() <= width) ||
                factor < 0.65) {
                titleHeight = std::min(needed.height(), 3 * metrics.lineSpacing() + 1);
                if (needed.height() > titleHeight + 1 || needed.width() > width)
                    m_titleText = metrics.elidedText(m_titleText, Qt::ElideRight, 3 * width);
                break;
            }
        }
    }
    if (labelled && style.shrinkLabels && style.labels == LabelMode::Auto) {
        // Row labels shrink, to three quarters at most, before every other one is dropped: a
        // label shown is worth more than a tooltip to hover for. The room is the cells' height
        // with upright column labels (the passes below settle it).
        const QFont base = m_tickFont;
        const auto fits = [&](const QFont& font) {
            const double line = QFontMetricsF(font).height();
            const double bands = h.columnBands.empty() ? 0 : std::max(8.0, line * 0.9) + 2;
            const double room = area.height() - 2 * kPad - (titleHeight > 0 ? titleHeight + 4 : 0) -
                bands - axisLine - 2 - (line + 4);
            return m_rows * (line + 1) <= room;
        };
        for (double factor = 1.0; m_rows > 0 && !fits(m_tickFont) && factor > 0.76;) {
            factor -= 0.05;
            m_tickFont = scaled(base, factor);
        }
        if (!fits(m_tickFont))
            m_tickFont = base; // thinned either way: at the size a reader expects
    }
    const QFontMetricsF tick(m_tickFont);
    const double tickLine = tick.height();

    double top = area.top() + kPad;
    if (titleHeight > 0) {
        m_title = QRectF(area.left() + kPad, top, area.width() - 2 * kPad, titleHeight + 2);
        // The head's frame stands 3 px outside the cells with a 2.5 px pen: the gap keeps it off
        // the title's descenders (an underscore in Q_h vanished under it).
        top += m_title.height() + 2 + (h.head >= 0 && style.headFrame ? 5 : 0);
    }
    const double bandHeight = h.columnBands.empty() ? 0 : std::max(8.0, tickLine * 0.9);
    if (bandHeight > 0)
        top += bandHeight + 2;

    double right = area.right() - kPad;
    if (style.colourBar) {
        m_ticks =
            colourBarTicks(range,
                           h.scale == lesson::ColourScale::Sequential ? style.colouring.stretch
                                                                      : lesson::Stretch::Linear);
        double widest = 0;
        for (const double t : m_ticks)
            widest = std::max(widest, tick.horizontalAdvance(formatValue(t)));
        right -= 8 + kBarWidth + 4 + widest;
    }
    const double sumsWidth = style.rowSums ? tick.horizontalAdvance(QStringLiteral("0.0000")) : 0;
    if (style.rowSums)
        right -= sumsWidth + 6;

    const double maxLabel =
        std::max(24.0, std::min(area.width() * 0.28, tick.averageCharWidth() * 18));
    const double labelBottom = area.bottom() - kPad - axisLine - 2;
    // pass 1: row labels for a guessed height, then columns for the resulting width
    double bottomGuess = labelled ? tickLine + 4 : 2;
    for (int pass = 0; pass < 2; ++pass) {
        const double cellsHeight = std::max(4.0, labelBottom - bottomGuess - top);
        const int rowStep = stepFor(m_rows, cellsHeight, tickLine + 1, style.labels);
        m_rowLabelWidth = pickLabels(h.matrix.rowLabels, m_rows, rowStep, m_tickFont, maxLabel,
                                     style.spaceMarks, m_rowLabels);
        m_crowded = style.labels == LabelMode::All && m_rows * (tickLine + 1) > cellsHeight + 0.5;
        const double left =
            area.left() + kPad + axisLine + 4 + (labelled ? m_rowLabelWidth + 4 : 0);
        const double cellsWidth = std::max(4.0, right - left);

        // Upright when that shows at least half the labels turning would: turned text is harder
        // to read, and single letters turned look like other letters.
        std::vector<Label> upright;
        double uprightWidest = 0;
        int uprightStep = labelled ? 1 : 0;
        for (int k = 0; k < 2 && labelled; ++k) {
            uprightWidest = pickLabels(h.matrix.columnLabels, m_columns, uprightStep, m_tickFont,
                                       maxLabel, style.spaceMarks, upright);
            uprightStep = std::max(
                uprightStep, stepFor(m_columns, cellsWidth, uprightWidest + 6, LabelMode::Auto));
        }
        if (style.labels == LabelMode::All && uprightStep > 1) {
            // Every label: upright when they fit so, turned otherwise, crowded when not even then.
            uprightStep = 1;
            m_turned = true;
        } else {
            const int turnedStep =
                stepFor(m_columns, cellsWidth, tickLine / kTurn + 2, style.labels);
            m_turned = labelled && uprightStep > 2 * turnedStep;
        }
        uprightWidest = pickLabels(h.matrix.columnLabels, m_columns, uprightStep, m_tickFont,
                                   maxLabel, style.spaceMarks, upright);
        if (m_turned) {
            const int turnedStep =
                stepFor(m_columns, cellsWidth, tickLine / kTurn + 2, style.labels);
            const double widest =
                pickLabels(h.matrix.columnLabels, m_columns, turnedStep, m_tickFont, maxLabel,
                           style.spaceMarks, m_columnLabels);
            bottomGuess = widest * kTurn + tickLine * kTurn + 6;
            m_crowded = m_crowded ||
                (style.labels == LabelMode::All &&
                 m_columns * (tickLine / kTurn + 1) > cellsWidth + 0.5);
        } else {
            m_columnLabels = std::move(upright);
            bottomGuess = labelled ? tickLine + 4 : 2;
        }
        m_cells = QRectF(left, top, cellsWidth, std::max(4.0, labelBottom - bottomGuess - top));
    }
    // One to three rows (a decoding step's single query) would stretch into bars as tall as the
    // plot: a row is at most a quarter of the height, or square when the cells are wider, and
    // the matrix with its labels sits in the middle of the room it leaves.
    double columnAxisTop = area.bottom() - kPad - axisLine;
    double barTop = m_cells.top(), barHeight = m_cells.height();
    if (m_rows > 0 && m_rows < 4 && m_columns > 0) {
        const double rowHeight = std::min(
            m_cells.height() / m_rows, std::max(m_cells.width() / m_columns, m_cells.height() / 4));
        const double shrunk = m_cells.height() - rowHeight * m_rows;
        m_cells =
            QRectF(m_cells.left(), m_cells.top() + shrunk / 2, m_cells.width(), rowHeight * m_rows);
        columnAxisTop -= shrunk / 2;
        if (!m_title.isNull())
            m_title.translate(0, shrunk / 2);
        // The colour bar keeps room for its ticks.
        barHeight = std::min(barHeight, std::max(m_cells.height(), 8 * tickLine));
        barTop = m_cells.center().y() - barHeight / 2;
    }
    if (bandHeight > 0)
        m_bands =
            QRectF(m_cells.left(), m_cells.top() - bandHeight - 2, m_cells.width(), bandHeight);
    if (style.rowSums)
        m_rowSums = QRectF(m_cells.right() + 4, m_cells.top(), sumsWidth, m_cells.height());
    if (style.colourBar)
        m_colourBar = QRectF((style.rowSums ? m_rowSums.right() : m_cells.right()) + 8, barTop,
                             kBarWidth, barHeight);
    m_rowAxisTitle = QRectF(area.left() + kPad, m_cells.top(), axisLine, m_cells.height());
    m_columnAxisTitle = QRectF(m_cells.left(), columnAxisTop, m_cells.width(), axisLine);
}

QRectF HeatmapLayout::cellRect(int row, int column) const
{
    const double w = m_cells.width() / std::max(m_columns, 1),
                 h = m_cells.height() / std::max(m_rows, 1);
    return {m_cells.left() + column * w, m_cells.top() + row * h, w, h};
}

QPointF HeatmapLayout::cellCentre(int row, int column) const
{
    return cellRect(row, column).center();
}

std::optional<std::pair<int, int>> HeatmapLayout::cellAt(QPointF p) const
{
    if (m_rows == 0 || m_columns == 0 || !m_cells.contains(p))
        return std::nullopt;
    const int column = std::clamp(
        static_cast<int>((p.x() - m_cells.left()) / m_cells.width() * m_columns), 0, m_columns - 1);
    const int row = std::clamp(
        static_cast<int>((p.y() - m_cells.top()) / m_cells.height() * m_rows), 0, m_rows - 1);
    return std::pair{row, column};
}

} // namespace attnviz::render
