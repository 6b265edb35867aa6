#pragma once

#include "lesson/model_run.h"

#include <QDialog>

#include <memory>
#include <vector>

class QLabel;
class QHBoxLayout;

namespace attnviz::app {

class HeatmapView;

/// Experiments ▸ Attention sinks: for the model run shown, the share of each head's weight that
/// lands on the first token, layers × heads (lesson::attentionSinkMaps), with Xiao et al.'s
/// reason for it. The playground has no trained heads and says so.
class AttentionSinksDialog : public QDialog {
    Q_OBJECT
public:
    explicit AttentionSinksDialog(QWidget* parent = nullptr);

    /// The run to read; null for the playground.
    void setRun(const std::shared_ptr<const lesson::ModelRun>& run);
    QString summary() const;
    const std::vector<HeatmapView*>& views() const { return m_views; }

private:
    QLabel* m_summary;
    QHBoxLayout* m_maps;
    std::vector<HeatmapView*> m_views;
};

} // namespace attnviz::app
