#pragma once

#include "lesson/model_walkthrough.h"

#include <QWidget>

#include <vector>

class QGridLayout;
class QLabel;

namespace attnviz::app {

class HeatmapView;

/// The whole model at a glance: the attention weights of one kind of block for every layer
/// (rows) and head (columns) as small multiples on one colour scale. A click opens that layer and
/// head in the walkthrough.
class ModelOverview : public QWidget {
    Q_OBJECT
public:
    explicit ModelOverview(QWidget* parent = nullptr);

    /// Each view keeps its block's walkthrough alive through its heatmap.
    void show(const std::shared_ptr<const lesson::ModelRun>& run,
              const lesson::BlockChoice& choice);
    /// The views in layer-major order (for tests).
    const std::vector<HeatmapView*>& views() const { return m_views; }

signals:
    void headChosen(int layer, engine::Block block, int head);
    /// "◀ Back to the steps": the step panel again, on the block it showed.
    void backRequested();

private:
    QLabel* m_title;
    QGridLayout* m_grid;
    std::vector<HeatmapView*> m_views;
};

} // namespace attnviz::app
