#pragma once

#include "app/heatmap_data.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;

namespace attnviz::app {

/// One matrix as a heatmap: rows top to bottom, columns left to right, labelled with tokens or
/// feature indices, a colour scale beside it, blocked (−∞) cells in neutral grey rather than a
/// colour of the scale, and a tooltip with the row, the column and the exact value.
class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);

    /// Shows `data` with colours spanning `range`; `showScale` adds the colour bar.
    void setData(HeatmapData data, std::pair<double, double> range, bool showScale);
    const HeatmapData& data() const { return m_data; }

    /// The cell under a point in this widget's coordinates, if any: (row, column).
    std::optional<std::pair<int, int>> cellAt(QPoint position) const;
    /// The centre of a cell in this widget's coordinates (for tests and keyboard focus).
    QPoint cellCentre(int row, int column) const;
    /// What the tooltip says about a cell.
    QString toolTipForCell(int row, int column) const;
    /// The last tooltip shown by hovering.
    QString lastToolTip() const { return m_lastToolTip; }

    QCustomPlot* plot() const { return m_plot; }
    /// Thins the tick labels to what fits in `room` pixels (the widget's size on screen; the
    /// image size when drawing an export).
    void fitLabels(QSize room);

signals:
    void clicked();
    void cellClicked(int row, int column);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// QCustomPlot keeps its own fonts; follow the widget's so presentation mode reaches the plots.
    void applyWidgetFont();
    int labelLimit(int pixels) const;
    void updateTickLabels(bool newColumns, bool newRows);

    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPTextElement* m_title;
    HeatmapData m_data;
    QString m_lastToolTip;
    QSize m_labelRoom{640, 640};
    int m_columnLimit = 0;
    int m_rowLimit = 0;
};

} // namespace attnviz::app
