#pragma once

#include "lesson/heatmap.h"
#include "render/heatmap_layout.h"
#include "render/heatmap_style.h"

#include <QImage>
#include <QWidget>

#include <optional>

namespace attnviz::app {

/// One matrix as a heatmap on screen, drawn by the same painter as every export
/// (render::paintHeatmap): rows top to bottom, columns left to right, labelled with tokens or
/// feature indices, a colour bar beside it, blocked cells grey, and a tooltip naming the head,
/// the row, the column and the exact value. The cells' image is built at the size the cells are
/// shown (a large matrix averaged over blocks of cells) and kept between repaints, so a grid of
/// 1024 × 1024 maps, or hovering one, repaints from small cached pictures.
class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);

    /// Shows `heatmap` with colours spanning `range`; `colourBar` adds the colour bar. The
    /// tooltip always reads the exact cell, however small the map is drawn.
    void setHeatmap(lesson::Heatmap heatmap, std::pair<double, double> range, bool colourBar);
    const lesson::Heatmap& heatmap() const { return m_heatmap; }
    /// Lets go of the heatmap's data (Session::releasingWalkthrough): the view shows nothing
    /// until the next setHeatmap, which follows before anything is painted.
    void releaseHeatmap();
    std::pair<double, double> range() const { return m_range; }
    void setHighlight(std::optional<render::Highlight> highlight);
    void setValuesInCells(bool on);
    /// The cells of a mask being drawn (outlined), and whether a click draws (a cross cursor).
    void setDrawnCells(std::set<std::pair<int, int>> cells, bool drawing);
    const std::set<std::pair<int, int>>& drawnCells() const { return m_drawnCells; }
    /// A column of row sums right of the cells (the weights: each row sums to 1).
    void setRowSums(bool on);

    /// The cell under a point in this widget's coordinates, if any: (row, column).
    std::optional<std::pair<int, int>> cellAt(QPoint position) const;
    /// The centre of a cell in this widget's coordinates (for tests and keyboard focus).
    QPoint cellCentre(int row, int column) const;
    /// What the tooltip says about a cell.
    QString toolTipForCell(int row, int column) const;
    /// The last tooltip shown by hovering.
    QString lastToolTip() const { return m_lastToolTip; }
    const render::HeatmapLayout& layout() const;
    /// How far the mouse wheel has zoomed in (1: the whole map).
    double zoom() const { return m_zoom; }

signals:
    void clicked();
    void cellClicked(int row, int column);
    /// A right click (or the context-menu key) on the view, with the cell under it if any.
    void contextMenuRequested(QPoint globalPosition, std::optional<std::pair<int, int>> cell);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

    void wheelEvent(QWheelEvent* event) override;

private:
    render::HeatmapStyle style() const;
    /// The cells' image at the size they are drawn now, built if that size changed.
    const QImage& cellsAsShown();
    /// A point of the widget in the unzoomed map's coordinates.
    QPointF unzoomed(QPointF position) const;

    lesson::Heatmap m_heatmap;
    std::pair<double, double> m_range{0, 1};
    bool m_colourBar = true;
    bool m_valuesInCells = false;
    bool m_rowSums = false;
    std::optional<render::Highlight> m_highlight;
    std::set<std::pair<int, int>> m_drawnCells;
    /// The cells at the device pixels they cover (at most one pixel per cell), rebuilt when the
    /// matrix, the range, the size or the zoom changes.
    QImage m_cells;
    mutable std::optional<render::HeatmapLayout>
        m_layout; ///< rebuilt on resize, font or data change
    QString m_lastToolTip;
    /// The wheel's zoom: the map drawn `m_zoom` times larger, moved by `m_offset`, so a long
    /// text's corner can be read without an export.
    double m_zoom = 1;
    QPointF m_offset;
};

} // namespace attnviz::app
