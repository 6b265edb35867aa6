#pragma once

#include "app/experiments/experiment_dialog.h"
#include "app/window/newest_request_wins.h"
#include "lesson/attention_sinks.h"
#include "lesson/model_run.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QHBoxLayout;
class QPushButton;

namespace attnviz::app {

class HeatmapView;

/// Experiments ▸ Attention sinks: for the model run shown, the share of each head's weight that
/// lands on the first token, layers × heads (lesson::attentionSinkMaps), with Xiao et al.'s
/// reason for it; and their experiment, on a decoder-only model: the text run again without its
/// first token (lesson::withoutFirstToken, off the GUI thread), where the share moves to the
/// token that is now first and the predictions of the same tokens get worse. The playground has
/// no trained heads and says so.
class AttentionSinksDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit AttentionSinksDialog(QWidget* parent = nullptr);
    ~AttentionSinksDialog() override;

    QString summary() const;
    const std::vector<HeatmapView*>& views() const { return m_views; }
    /// Runs the text again without its first token (the button).
    void removeFirstToken();
    QString removalSummary() const;
    const std::vector<HeatmapView*>& removalViews() const { return m_removalViews; }
    bool busy() const override { return m_work.busy(); }

signals:
    /// The run without the first token ended: shown, or its error in the summary.
    void removalShown();

private:
    /// The run shown (none in the playground); the memory limit bounds the second run.
    void follow(const Session& session) override;

    struct Request {
        std::shared_ptr<const lesson::ModelRun> run;
        std::optional<std::uint64_t> maxMemory;
    };
    struct Outcome {
        std::optional<lesson::FirstTokenRemoved> removed;
        QString error;
    };
    void showRemoval(Outcome outcome, JobFate fate);
    void clearRemoval(const QString& summary);
    /// Views of `maps` in `row`, on one colour range.
    std::vector<HeatmapView*> showMaps(std::vector<lesson::AttentionSinkMap> maps, QHBoxLayout* row,
                                       const QString& prefix);

    QLabel* m_summary;
    QHBoxLayout* m_maps;
    std::vector<HeatmapView*> m_views;
    QPushButton* m_remove;
    QLabel* m_removalSummary;
    QHBoxLayout* m_removalMaps;
    std::vector<HeatmapView*> m_removalViews;
    std::shared_ptr<const lesson::ModelRun> m_run;
    std::optional<std::uint64_t> m_maxMemory;
    NewestRequestWins<Request, Outcome> m_work;
};

} // namespace attnviz::app
