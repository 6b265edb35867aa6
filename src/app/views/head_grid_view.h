#pragma once

#include "lesson/heatmap.h"
#include "render/heatmap_style.h"

#include <QWidget>

#include <optional>
#include <set>
#include <utility>
#include <vector>

class QGridLayout;

namespace attnviz::app {

class HeatmapView;

/// The matrices of one step side by side: every head of a per-head step, or the few whole
/// matrices of the others. Clicking a head focuses it (shown alone, large); `showAll()` returns.
/// Views are reused between updates so that stepping and sliders do not rebuild widgets.
class HeadGridView : public QWidget {
    Q_OBJECT
public:
    explicit HeadGridView(QWidget* parent = nullptr);

    /// `perHead`: the matrices are one per head (a head can be focused). `sharedRange`: one
    /// colour range for all matrices; otherwise one per matrix.
    void setMatrices(std::vector<lesson::Heatmap> maps, bool perHead, bool sharedRange);
    const std::vector<lesson::Heatmap>& matrices() const { return m_maps; }
    /// Lets go of the matrices' data but keeps the views, the focused head and the layout for
    /// the matrices that replace them (StepPanel::releaseWalkthrough).
    void releaseMatrices();
    /// What every view prints besides colours: each cell's value (where it fits) and a
    /// column of row sums.
    void setCellText(bool values, bool rowSums);
    void showAll();
    /// Shows one head alone, as a click on it does.
    void focusHead(int head);
    int focusedHead() const { return m_focused; }

    /// The views currently shown, in order.
    std::vector<HeatmapView*> visibleViews() const;

    /// Presentation mode's pointer: a click marks a cell in every head (Shift: its row, Ctrl: its
    /// column; the same click again clears it) instead of showing the head alone, so the whole
    /// room sees the same query in each head. The mark stays while stepping, where it fits.
    void setMarking(bool on);
    void setMark(std::optional<render::Highlight> mark);

    /// Drawing a custom mask: a click on a cell is a stroke (cellClicked), never a zoom, and the
    /// cells drawn so far are outlined in every head.
    void setMaskDrawing(bool on, std::set<std::pair<int, int>> cells);
    bool maskDrawing() const { return m_drawing; }
    std::optional<render::Highlight> mark() const { return m_mark; }

signals:
    void headFocused(int head);
    /// A cell of the map of head `head` (−1 for a whole matrix) was clicked.
    void cellClicked(int head, int row, int column);
    /// A right click: on the head `head` (its own map, or its band of a whole matrix such as
    /// concat), or −1 where no head owns the spot; on the cell (row, column), or −1, −1.
    void headMenuRequested(QPoint globalPosition, int head, int row, int column);

private:
    /// Places the shown views in the grid (only when which views are shown has changed: moving
    /// widgets makes every plot resize its paint buffers) and gives each its matrix.
    void relayout();
    std::vector<int> shownIndices() const;

    QGridLayout* m_layout;
    std::vector<HeatmapView*> m_views;
    std::vector<lesson::Heatmap> m_maps;
    bool m_perHead = false;
    bool m_sharedRange = true;
    bool m_values = false;
    bool m_rowSums = false;
    int m_focused = -1;
    bool m_marking = false;
    std::optional<render::Highlight> m_mark;
    bool m_drawing = false;
    std::set<std::pair<int, int>> m_drawnCells;
    std::vector<int> m_placed; ///< the view indices currently in the layout, in order
};

} // namespace attnviz::app
