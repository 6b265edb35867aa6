#pragma once

#include "app/experiments/experiment_dialog.h"
#include "app/window/newest_request_wins.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/head_importance.h"

#include <QElapsedTimer>

class QLabel;

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace Ui {
class ImportanceDialog;
}

namespace attnviz::app {

class HeatmapView;

/// A metric's name in the interface's language (lesson::metricName is the CLI's English).
QString metricTitle(lesson::ImportanceMetric metric);

/// Experiments ▸ Head importance: D2L 10.3's exercise for the model shown. Each head is switched
/// off in turn and the model scored on its held-out examples (or the text shown), off the GUI
/// thread (lesson::headImportance does the work); the result is a layers × heads heatmap per
/// kind of block and a ranking. Choosing a head switches it off in the main window.
class ImportanceDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit ImportanceDialog(QWidget* parent = nullptr);
    ~ImportanceDialog() override;

    /// Starts measuring (the Measure button).
    void measure();
    bool busy() const override { return m_work.busy(); }
    const std::optional<lesson::ImportanceReport>& report() const { return m_report; }
    Ui::ImportanceDialog* ui() const { return m_ui.get(); }

signals:
    /// A measurement ended: with a report, an error in the summary line, or stopped.
    void measured();

private:
    /// The model the window shows and its text (scored when the folder has no heldout.txt), under
    /// the memory limit; none in the playground, whose random module has nothing to be scored
    /// on. Another model drops the report (and stops a measurement under way).
    void follow(const Session& session) override;

    struct Measurement {
        std::shared_ptr<const io::LoadedModel> model;
        lesson::EvaluationSet examples;
        std::optional<std::uint64_t> maxMemory;
        /// What the examples are, in the interface's language (examples.description is the
        /// lesson layer's English, for the CLI).
        QString description;
    };
    struct Outcome {
        std::optional<lesson::ImportanceReport> report;
        QString error;
        QString description;
    };
    using Job = NewestRequestWins<Measurement, Outcome>::Job;
    Job prepare(const Measurement& measurement);
    void finish(const Outcome& outcome, JobFate fate);
    void showReport();
    void clearReport(const QString& summary);
    /// The Measure button and the progress bar as when nothing runs.
    void showIdle();
    /// The attention heads of the model shown (0 without one).
    int headCount() const;
    /// The empty state: what Measure will run and roughly how long it takes.
    void describeMeasurement();

    std::unique_ptr<Ui::ImportanceDialog> m_ui;
    std::shared_ptr<const io::LoadedModel> m_model;
    std::string m_text;
    std::optional<std::uint64_t> m_maxMemory;
    std::optional<lesson::ImportanceReport> m_report;
    QString m_description; ///< what m_report was measured on, as Measurement::description
    std::vector<HeatmapView*> m_views;
    QLabel* m_emptyState = nullptr;
    QElapsedTimer m_started; ///< when the measurement under way began
    NewestRequestWins<Measurement, Outcome> m_work;
};

} // namespace attnviz::app
