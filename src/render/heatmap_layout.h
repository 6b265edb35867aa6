#pragma once

#include "lesson/colour_scale.h"
#include "lesson/heatmap.h"
#include "render/heatmap_style.h"

#include <QFont>
#include <QRectF>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace attnviz::render {

/// Where every part of one heatmap goes inside a rectangle: the title, the head bands, the
/// cells, the tick labels (thinned to what fits, and turned 45° only when they do not fit
/// upright), the axis titles and the colour bar. Painting and mouse hit-testing both read it,
/// so a click lands on the cell that was drawn there.
class HeatmapLayout {
public:
    HeatmapLayout() = default;
    HeatmapLayout(const lesson::Heatmap& heatmap, std::pair<double, double> range, QRectF area,
                  const HeatmapStyle& style);

    /// The tick labels' font for a style's font (85 % of it).
    static QFont tickFontOf(const QFont& font);

    QRectF area() const { return m_area; }
    QRectF cells() const { return m_cells; }
    QRectF title() const { return m_title; }
    QRectF bands() const { return m_bands; }
    QRectF colourBar() const { return m_colourBar; }
    /// The column of row sums right of the cells (null unless the style asks for it).
    QRectF rowSums() const { return m_rowSums; }
    QRectF rowAxisTitle() const { return m_rowAxisTitle; }
    QRectF columnAxisTitle() const { return m_columnAxisTitle; }
    int rows() const { return m_rows; }
    int columns() const { return m_columns; }

    QFont titleFont() const { return m_titleFont; }
    /// The title as drawn: control characters visible, wrapped into title() by word.
    QString titleText() const { return m_titleText; }
    QFont tickFont() const { return m_tickFont; }
    QFont axisFont() const { return m_axisFont; }

    /// The rows and columns whose labels are shown, with their (elided) text.
    struct Label {
        int index;
        QString text;
    };
    const std::vector<Label>& rowLabels() const { return m_rowLabels; }
    const std::vector<Label>& columnLabels() const { return m_columnLabels; }
    bool columnLabelsTurned() const { return m_turned; }
    /// LabelMode::All only: the labels do not fit at the font size (a figure would overlap them).
    bool labelsCrowded() const { return m_crowded; }
    double rowLabelWidth() const { return m_rowLabelWidth; }

    /// The colour bar's tick values.
    const std::vector<double>& ticks() const { return m_ticks; }

    QRectF cellRect(int row, int column) const;
    QPointF cellCentre(int row, int column) const;
    /// The cell under a point, if any: (row, column).
    std::optional<std::pair<int, int>> cellAt(QPointF point) const;

private:
    QRectF m_area, m_cells, m_title, m_bands, m_colourBar, m_rowSums, m_rowAxisTitle,
        m_columnAxisTitle;
    int m_rows = 0, m_columns = 0;
    QFont m_titleFont, m_tickFont, m_axisFont;
    std::vector<Label> m_rowLabels, m_columnLabels;
    bool m_turned = false;
    bool m_crowded = false;
    QString m_titleText;
    double m_rowLabelWidth = 0;
    std::vector<double> m_ticks;
};

/// A token as a label shows it: a space as ␣, a line break as ↵, a tab as ⇥, other characters
/// as visibleText does, an empty token as ∅ — so that no label is blank or breaks the line.
/// Without `spaceMarks`, a space (and the ␣ that spells one) is drawn as a space.
QString visibleToken(const QString& token, bool spaceMarks = true);
/// Text from the input (a model's name in a title) as it is drawn: control and formatting
/// characters (ESC, a bidirectional override) and the non-characters U+FFFE and U+FFFF as their
/// codes, \x1b — visible, unable to reorder what follows, and legal in every export format
/// (XML 1.0 forbids them in SVG).
QString visibleText(const QString& text);

/// The most ticks a colour bar has: a bar on a projector has room for about ten labels.
inline constexpr int kMaxColourBarTicks = 12;
/// The colour bar's tick values for a range: a few round numbers within it (powers of ten on a
/// log scale), increasing, at most kMaxColourBarTicks of them whatever the range.
std::vector<double> colourBarTicks(std::pair<double, double> range,
                                   lesson::Stretch stretch = lesson::Stretch::Linear);
/// A value as a tick or a tooltip prints it (−∞ as such).
QString formatValue(double value, int significant = 3);
/// A value as printed inside its cell: short and readable from the back of a room (two
/// decimals, fewer as it grows; "0" for what rounds to zero rather than 1.9e-27).
QString cellValueText(double value);
/// `value` with `decimals` decimals; what rounds to zero prints as 0.000, never as "-0.000"
/// (a change of weights sums to 0 up to rounding).
QString formatFixed(double value, int decimals);

} // namespace attnviz::render
