#include "app/views/head_grid_view.h"

#include <QApplication>

#include "app/views/heatmap_view.h"
#include "render/heatmap_grid.h"

#include <QGridLayout>

#include <algorithm>

namespace attnviz::app {

HeadGridView::HeadGridView(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QGridLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(6);
}

void HeadGridView::setMatrices(std::vector<lesson::Heatmap> maps, bool perHead, bool sharedRange)
{
    m_maps = std::move(maps);
    m_perHead = perHead;
    m_sharedRange = sharedRange;
    if (!m_perHead || m_focused >= static_cast<int>(m_maps.size()))
        m_focused = -1;
    while (m_views.size() < m_maps.size()) {
        auto* view = new HeatmapView(this);
        // Hidden until relayout places it: a view made while the grid is not on screen (the
        // overview shown, one head focused) would otherwise appear, unplaced, with its parent.
        view->hide();
        view->setValuesInCells(m_values);
        view->setRowSums(m_rowSums);
        view->setDrawnCells(m_drawnCells, m_drawing);
        const int index = static_cast<int>(m_views.size());
        connect(view, &HeatmapView::clicked, this, [this, index] {
            if (m_focused < 0 && !m_marking && !m_drawing)
                focusHead(index);
        });
        connect(view, &HeatmapView::cellClicked, this, [this, index](int row, int column) {
            if (!m_marking) {
                emit cellClicked(m_maps[static_cast<std::size_t>(index)].head, row, column);
                return;
            }
            const Qt::KeyboardModifiers keys = QApplication::keyboardModifiers();
            render::Highlight mark{render::Highlight::Kind::Cell, row, column};
            if (keys & Qt::ShiftModifier)
                mark.kind = render::Highlight::Kind::Row;
            else if (keys & Qt::ControlModifier)
                mark.kind = render::Highlight::Kind::Column;
            const bool same = m_mark && m_mark->kind == mark.kind &&
                (mark.kind == render::Highlight::Kind::Column || m_mark->row == row) &&
                (mark.kind == render::Highlight::Kind::Row || m_mark->column == column);
            setMark(same ? std::nullopt : std::optional(mark));
        });
        connect(view, &HeatmapView::contextMenuRequested, this,
                [this, index](QPoint at, std::optional<std::pair<int, int>> cell) {
                    const lesson::Heatmap& map = m_maps[static_cast<std::size_t>(index)];
                    int head = map.head;
                    if (head < 0 && cell)
                        for (const lesson::Heatmap::Band& band : map.columnBands)
                            if (cell->second >= band.first &&
                                cell->second < band.first + band.count && band.sharedBy == 0)
                                head = band.head;
                    emit headMenuRequested(at, head, cell ? cell->first : -1,
                                           cell ? cell->second : -1);
                });
        m_views.push_back(view);
    }
    relayout();
}

void HeadGridView::releaseMatrices()
{
    for (lesson::Heatmap& map : m_maps) {
        map.owner.reset();
        map.mask.reset();
        map.matrix.values = nullptr;
        map.matrix.rows = map.matrix.cols = 0;
    }
    for (HeatmapView* view : m_views)
        view->releaseHeatmap();
}

void HeadGridView::setCellText(bool values, bool rowSums)
{
    m_values = values;
    m_rowSums = rowSums;
    for (HeatmapView* view : m_views) {
        view->setValuesInCells(values);
        view->setRowSums(rowSums);
    }
}

void HeadGridView::focusHead(int head)
{
    if (!m_perHead || head < 0 || head >= static_cast<int>(m_maps.size()))
        return;
    m_focused = head;
    relayout();
    emit headFocused(head);
}

void HeadGridView::setMarking(bool on)
{
    m_marking = on;
    if (!on)
        setMark(std::nullopt);
}

void HeadGridView::setMark(std::optional<render::Highlight> mark)
{
    m_mark = mark;
    relayout();
}

void HeadGridView::setMaskDrawing(bool on, std::set<std::pair<int, int>> cells)
{
    m_drawing = on;
    m_drawnCells = on ? std::move(cells) : std::set<std::pair<int, int>>{};
    for (HeatmapView* view : m_views)
        view->setDrawnCells(m_drawnCells, m_drawing);
}

void HeadGridView::showAll()
{
    m_focused = -1;
    relayout();
}

std::vector<HeatmapView*> HeadGridView::visibleViews() const
{
    std::vector<HeatmapView*> shown;
    for (HeatmapView* v : m_views)
        if (!v->isHidden())
            shown.push_back(v);
    return shown;
}

std::vector<int> HeadGridView::shownIndices() const
{
    if (m_focused >= 0)
        return {m_focused};
    std::vector<int> shown(m_maps.size());
    for (std::size_t i = 0; i < shown.size(); ++i)
        shown[i] = static_cast<int>(i);
    return shown;
}

void HeadGridView::relayout()
{
    const std::vector<int> shown = shownIndices();
    if (shown != m_placed) {
        for (HeatmapView* v : m_views) {
            m_layout->removeWidget(v);
            v->hide();
        }
        const int count = static_cast<int>(shown.size());
        const int columns = render::gridColumns(count);
        // Each view spans two half-columns (render::gridSlot), so that a last row with fewer
        // views (5 heads in rows of 3) is centred under the others.
        for (int c = 0; c < std::max(m_layout->columnCount(), 2 * columns); ++c)
            m_layout->setColumnStretch(c, c < 2 * columns ? 1 : 0);
        for (int k = 0; k < count; ++k) {
            HeatmapView* view =
                m_views[static_cast<std::size_t>(shown[static_cast<std::size_t>(k)])];
            const render::GridSlot slot = render::gridSlot(k, count, columns);
            m_layout->addWidget(view, slot.row, slot.halfColumn, 1, 2);
            view->show();
        }
        m_placed = shown;
    }
    const auto shared = lesson::colourRange(m_maps);
    // Each matrix shows its own colour bar unless all share one range.
    const int count = static_cast<int>(shown.size());
    const int withBar = render::sharedColourBarIndex(count, render::gridColumns(count));
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const auto i = static_cast<std::size_t>(shown[k]);
        m_views[i]->setHeatmap(m_maps[i], m_sharedRange ? shared : lesson::colourRange({m_maps[i]}),
                               !m_sharedRange || static_cast<int>(k) == withBar);
        // A mark outside this step's matrix (fewer rows or columns) is not drawn here.
        const bool fits = m_mark &&
            (m_mark->kind == render::Highlight::Kind::Column || m_mark->row < m_maps[i].rows()) &&
            (m_mark->kind == render::Highlight::Kind::Row || m_mark->column < m_maps[i].cols());
        m_views[i]->setHighlight(fits ? m_mark : std::nullopt);
    }
}

} // namespace attnviz::app
