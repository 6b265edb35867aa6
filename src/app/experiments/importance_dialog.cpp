#include "app/experiments/importance_dialog.h"

#include "app/panels/model_panel.h"
#include "app/views/heatmap_view.h"
#include "app/window/job_failure.h"
#include "app/window/session.h"
#include "lesson/importance_heatmap.h"
#include "render/heatmap_layout.h"
#include "ui_importance_dialog.h"

#include <QLabel>

#include <cmath>

namespace attnviz::app {
namespace {

struct Stopped { };

} // namespace

QString metricTitle(lesson::ImportanceMetric metric)
{
    switch (metric) {
    case lesson::ImportanceMetric::ExactMatch:
        return ImportanceDialog::tr("exact-match accuracy");
    case lesson::ImportanceMetric::Loss:
        return ImportanceDialog::tr("loss (nats per token)");
    case lesson::ImportanceMetric::OutputChange:
        return ImportanceDialog::tr("relative change of the encoder output");
    }
    return {};
}

ImportanceDialog::ImportanceDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::ImportanceDialog>())
    , m_work([this](const Measurement& m) { return prepare(m); },
             [this](const Outcome& outcome, JobFate fate) { finish(outcome, fate); }, [] {})
{
    m_ui->setupUi(this);
    m_ui->ranking->setColumnCount(6);
    m_ui->ranking->setHorizontalHeaderLabels(
        {tr("rank"), tr("layer"), tr("block"), tr("head"), tr("score"), tr("harm")});
    m_ui->ranking->verticalHeader()->setVisible(false);
    // Before a report, the room of the maps and the ranking says what Measure will do.
    m_emptyState = new QLabel(this);
    m_emptyState->setObjectName(QStringLiteral("emptyState"));
    m_emptyState->setWordWrap(true);
    m_emptyState->setAlignment(Qt::AlignCenter);
    m_emptyState->setMargin(24);
    m_emptyState->setStyleSheet(QStringLiteral(
        "color: #333; background: #f6f6f2; border: 1px solid #ddd; font-size: 115%;"));
    m_ui->heatmaps->addWidget(m_emptyState);
    // The maps and the ranking (or the empty state) take the room the texts leave.
    m_ui->layout->setStretchFactor(m_ui->results, 1);
    connect(m_ui->examples, &QSpinBox::valueChanged, this, [this] {
        if (!m_report && !busy())
            describeMeasurement();
    });
    connect(m_ui->measure, &QPushButton::clicked, this, [this] {
        if (busy())
            m_work.cancel();
        else
            measure();
    });
    connect(m_ui->ranking, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (!m_report)
            return;
        const std::vector<std::size_t> order = m_report->ranking();
        if (row >= 0 && static_cast<std::size_t>(row) < order.size())
            emit switchOffRequested(m_report->heads[order[static_cast<std::size_t>(row)]].head);
    });
    clearReport(tr("Open a trained model: the playground's random module has nothing to be "
                   "scored on."));
}

ImportanceDialog::~ImportanceDialog() = default;

void ImportanceDialog::follow(const Session& session)
{
    const ModelResult& shown = session.modelResult();
    m_text = shown.request.text;
    m_maxMemory = session.memoryLimit();
    if (shown.model == m_model)
        return;
    // A measurement of the model shown before would report on a model no longer shown.
    m_work.discard();
    showIdle();
    m_model = shown.model;
    m_ui->measure->setEnabled(m_model && m_model->model);
    if (!m_model || !m_model->model)
        clearReport(tr("Open a trained model: the playground's random module and imported "
                       "attentions have nothing to be scored on."));
    else
        clearReport(tr("%1: press Measure to switch each of its %n attention heads off in turn.",
                       nullptr, headCount())
                        .arg(QString::fromStdString(m_model->model->config().name)));
}

int ImportanceDialog::headCount() const
{
    if (!m_model || !m_model->model)
        return 0;
    const engine::ModelConfig& c = m_model->model->config();
    const int blocks = c.encoderLayers +
        c.decoderLayers * (c.architecture == engine::Architecture::EncoderDecoder ? 2 : 1);
    return blocks * c.numHeads;
}

void ImportanceDialog::describeMeasurement()
{
    const int heads = headCount();
    if (heads == 0) {
        m_emptyState->setText(tr("Head importance needs a trained model: choose one in the "
                                 "Model box of the main window."));
        return;
    }
    // The examples used are those of heldout.txt, at most as many as chosen; without it, the
    // text shown once.
    const int examples = m_ui->examples->value();
    m_emptyState->setText(
        tr("Measure runs the model once with every head on and once with each of its %n heads "
           "switched off, each time on up to %1 examples: up to %2 runs of the model. On the "
           "bundled models 100 examples take from about 3 seconds (a two-core desktop) to 20 "
           "(a slow laptop); a model the size of GPT-2 takes far longer. A bar counts the runs "
           "as they are done, with the time left, and Stop ends the measurement.",
           nullptr, heads)
            .arg(examples)
            .arg(examples * (heads + 1)));
}

void ImportanceDialog::clearReport(const QString& summary)
{
    m_report.reset();
    for (HeatmapView* view : m_views)
        delete view;
    m_views.clear();
    m_ui->ranking->setRowCount(0);
    m_ui->summary->setText(summary);
    m_ui->ranking->setVisible(false);
    m_emptyState->setVisible(true);
    describeMeasurement();
}

void ImportanceDialog::showIdle()
{
    m_ui->measure->setText(tr("&Measure"));
    m_ui->progress->setVisible(false);
}

void ImportanceDialog::measure()
{
    if (!m_model || !m_model->model)
        return;
    Measurement measurement{m_model, {}, m_maxMemory, {}};
    try {
        if (auto heldOut = lesson::readEvaluationSet(m_model->folder)) {
            const int total = static_cast<int>(heldOut->inputs.size());
            const int count = m_ui->examples->value();
            measurement.description = count < total
                ? tr("the first %1 of %n held-out examples (heldout.txt)", nullptr, total)
                      .arg(count)
                : tr("all %n held-out examples (heldout.txt)", nullptr, total);
            measurement.examples =
                lesson::firstExamples(std::move(*heldOut), static_cast<std::size_t>(count));
        }
    } catch (const std::exception& e) {
        clearReport(tr("heldout.txt cannot be used: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    if (measurement.examples.inputs.empty()) {
        measurement.examples.inputs = {m_text};
        measurement.examples.description = "the text shown";
        measurement.description = tr("the text shown");
    }
    clearReport(tr("Measuring on %1…").arg(measurement.description));
    m_ui->measure->setText(tr("&Stop"));
    m_ui->progress->setValue(0);
    m_ui->progress->setFormat(tr("starting…"));
    m_ui->progress->setVisible(true);
    m_started.start();
    m_work.request(measurement);
}

ImportanceDialog::Job ImportanceDialog::prepare(const Measurement& measurement)
{
    return [this, measurement](const std::atomic<bool>& stop) {
        // Progress crosses to the GUI thread as queued calls; Qt drops them if the dialog is
        // gone.
        const auto progress = [this, &stop](int done, int total) {
            if (stop)
                throw Stopped();
            QMetaObject::invokeMethod(
                this,
                [this, done, total] {
                    m_ui->progress->setMaximum(total);
                    m_ui->progress->setValue(done);
                    // The time left, from the pace so far.
                    const double seconds =
                        m_started.elapsed() / 1000.0 * (total - done) / std::max(done, 1);
                    m_ui->progress->setFormat(tr("%1 of %2 runs of the model · about %3 s left")
                                                  .arg(done)
                                                  .arg(total)
                                                  .arg(static_cast<int>(std::ceil(seconds))));
                },
                Qt::QueuedConnection);
        };
        Outcome outcome;
        outcome.description = measurement.description;
        try {
            outcome.report = lesson::headImportance(*measurement.model, measurement.examples,
                                                    progress, measurement.maxMemory);
        } catch (const Stopped&) {
            // Its fate says why: stopped by the user, or by a newer measurement.
        } catch (...) {
            outcome.error = jobFailure(
                std::current_exception(),
                ImportanceDialog::tr("There was not enough memory to measure the heads."));
        }
        return outcome;
    };
}

void ImportanceDialog::finish(const Outcome& outcome, JobFate fate)
{
    if (fate == JobFate::Overtaken)
        return;
    showIdle();
    if (outcome.report && fate == JobFate::Current) {
        m_report = outcome.report;
        m_description = outcome.description;
        showReport();
    } else {
        clearReport(fate == JobFate::Cancelled ? tr("Stopped.") : outcome.error);
    }
    emit measured();
}

void ImportanceDialog::showReport()
{
    m_emptyState->setVisible(false);
    m_ui->ranking->setVisible(true);
    const lesson::ImportanceReport& r = *m_report;
    const engine::ModelConfig& c = m_model->model->config();
    const std::vector<std::size_t> order = r.ranking();
    const QString metric = metricTitle(r.metric);
    QString summary = tr("%1 on %2. With every head on: %3.")
                          .arg(metric, m_description, render::formatFixed(r.baseline, 4));
    if (!order.empty()) {
        const lesson::HeadImportance& top = r.heads[order.front()];
        //: Two sentences one after the other: a space between them in English, none in Chinese.
        summary =
            tr("%1 %2", "sentence after sentence")
                .arg(summary,
                     tr("Switching off layer %1 %2 head %3 hurts most: %4 (%5 worse). "
                        "Layers and heads count from 0.")
                         .arg(top.head.layer)
                         .arg(blockTitle(top.head.block))
                         .arg(top.head.head)
                         .arg(render::formatFixed(top.value, 4), render::formatFixed(top.harm, 4)));
    }
    m_ui->summary->setText(summary);

    std::vector<lesson::ImportanceMap> maps = lesson::importanceHeatmaps(r, c.numHeads);
    // The lesson layer names the maps in English for the CLI and exports; on screen they speak
    // the interface's language. Rows and columns are numbered ("layer 0" as a label would be
    // drawn as a token, layer␣0); the axes say what the numbers count.
    for (lesson::ImportanceMap& m : maps) {
        m.heatmap.matrix.rowLabels.clear();
        m.heatmap.matrix.columnLabels.clear();
        m.heatmap.matrix.rowAxis = tr("layer").toStdString();
        m.heatmap.matrix.columnAxis = tr("head").toStdString();
        m.heatmap.caption =
            tr("%1: harm of switching a head off").arg(blockTitle(m.block)).toStdString();
        m.heatmap.title = tr("%1: harm of switching a head off (%2)")
                              .arg(blockTitle(m.block), metric)
                              .toStdString();
    }
    std::vector<lesson::Heatmap> all;
    for (const lesson::ImportanceMap& m : maps)
        all.push_back(m.heatmap);
    const auto range = lesson::colourRange(all);
    for (const auto& [block, map] : maps) {
        auto* view = new HeatmapView(this);
        view->setObjectName(QStringLiteral("importance ") +
                            QString::fromUtf8(engine::blockName(block)));
        view->setHeatmap(map, range, true);
        view->setValuesInCells(true);
        connect(view, &HeatmapView::cellClicked, this, [this, block = block](int layer, int head) {
            emit switchOffRequested({layer, block, head});
        });
        m_ui->heatmaps->addWidget(view, 1);
        m_views.push_back(view);
    }

    m_ui->ranking->setRowCount(static_cast<int>(order.size()));
    for (std::size_t i = 0; i < order.size(); ++i) {
        const lesson::HeadImportance& h = r.heads[order[i]];
        const QStringList cells{QString::number(i + 1),          QString::number(h.head.layer),
                                blockTitle(h.head.block),        QString::number(h.head.head),
                                render::formatFixed(h.value, 4), render::formatFixed(h.harm, 4)};
        for (int column = 0; column < cells.size(); ++column)
            m_ui->ranking->setItem(static_cast<int>(i), column,
                                   new QTableWidgetItem(cells[column]));
    }
    m_ui->ranking->resizeColumnsToContents();
}

} // namespace attnviz::app
