#include "app/head_grid_view.h"

#include "app/heatmap_view.h"

#include <QGridLayout>

#include <cmath>

namespace attnviz::app {

HeadGridView::HeadGridView(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QGridLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(6);
}

void HeadGridView::setMatrices(const StepMatrices& matrices, bool sharedRange)
{
    m_matrices = matrices;
    m_sharedRange = sharedRange;
    if (!m_matrices.perHead || m_focused >= static_cast<int>(m_matrices.maps.size()))
        m_focused = -1;
    while (m_views.size() < m_matrices.maps.size()) {
        auto* view = new HeatmapView(this);
        const int index = static_cast<int>(m_views.size());
        connect(view, &HeatmapView::clicked, this, [this, index] {
            if (m_matrices.perHead && m_focused < 0) {
                m_focused = index;
                relayout();
                emit headFocused(index);
            }
        });
        connect(view, &HeatmapView::cellClicked, this, &HeadGridView::cellClicked);
        m_views.push_back(view);
    }
    relayout();
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

void HeadGridView::relayout()
{
    for (HeatmapView* v : m_views) {
        m_layout->removeWidget(v);
        v->hide();
    }
    const auto& maps = m_matrices.maps;
    const auto shared = colourRange(maps);
    std::vector<int> shown;
    if (m_focused >= 0)
        shown.push_back(m_focused);
    else
        for (int i = 0; i < static_cast<int>(maps.size()); ++i)
            shown.push_back(i);
    const int columns = shown.size() <= 3 ? static_cast<int>(shown.size())
                                          : static_cast<int>(std::ceil(std::sqrt(static_cast<double>(shown.size()))));
    for (int k = 0; k < static_cast<int>(shown.size()); ++k) {
        const int i = shown[static_cast<std::size_t>(k)];
        HeatmapView* view = m_views[static_cast<std::size_t>(i)];
        const HeatmapData& matrix = maps[static_cast<std::size_t>(i)];
        // Each matrix shows its own colour bar unless all share one range; then the last does.
        const bool lastShown = k + 1 == static_cast<int>(shown.size());
        view->setData(matrix, m_sharedRange ? shared : colourRange({matrix}), !m_sharedRange || lastShown);
        m_layout->addWidget(view, k / std::max(columns, 1), k % std::max(columns, 1));
        view->show();
    }
}

} // namespace attnviz::app
