#include "app/experiments/rollout_dialog.h"

#include "app/export/map_export.h"
#include "app/panels/model_panel.h"
#include "app/views/heatmap_view.h"
#include "app/window/session.h"
#include "lesson/model_walkthrough.h"
#include "render/text_resource.h"
#include "ui_rollout_dialog.h"

namespace attnviz::app {

RolloutDialog::RolloutDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::RolloutDialog>())
{
    m_ui->setupUi(this);
    m_ui->explanation->setText(
        render::readTextResource({QStringLiteral(":/experiments/rollout.txt")}).body);
    m_ui->fusion->addItem(tr("mean"), static_cast<int>(lesson::HeadFusion::Mean));
    m_ui->fusion->addItem(tr("maximum"), static_cast<int>(lesson::HeadFusion::Max));
    m_ui->fusion->addItem(tr("minimum"), static_cast<int>(lesson::HeadFusion::Min));
    connect(m_ui->fusion, &QComboBox::currentIndexChanged, this, &RolloutDialog::redraw);
    connect(m_ui->discard, &QDoubleSpinBox::valueChanged, this, &RolloutDialog::redraw);
    connect(m_ui->exportButton, &QPushButton::clicked, this, [this] {
        if (m_map)
            exportMapAs(this, *m_map, {0.0, 1.0}, "rollout");
    });
    redraw();
}

RolloutDialog::~RolloutDialog() = default;

void RolloutDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    if (run == m_run)
        return;
    m_run = run;
    redraw();
}

void RolloutDialog::redraw()
{
    m_map.reset();
    m_ui->exportButton->setEnabled(false);
    if (!m_run || !m_run->trace) {
        m_ui->rollout->setHeatmap({}, {0.0, 1.0}, false);
        m_ui->summary->setText(tr("Open a model: the playground's one module has no layers to "
                                  "roll out."));
        return;
    }
    const lesson::RolloutOptions options{
        static_cast<lesson::HeadFusion>(m_ui->fusion->currentData().toInt()),
        m_ui->discard->value()};
    const engine::Block block = lesson::firstAttentionStack(m_run->config);
    try {
        const std::vector<int>& ids = m_run->trace->queryIds(block);
        lesson::Heatmap map =
            lesson::rolloutHeatmap(lesson::attentionRollout(*m_run->trace, block, options),
                                   lesson::displayTokens(*m_run, ids), options);
        map.caption = tr("%1, %n layer(s): attention rollout", nullptr,
                         static_cast<int>(m_run->trace->stackOf(block)->layers.size()))
                          .arg(blockTitle(block))
                          .toStdString();
        map.title = map.caption;
        map.matrix.rowAxis = tr("token").toStdString();
        map.matrix.columnAxis = tr("input token").toStdString();
        m_ui->rollout->setHeatmap(map, {0.0, 1.0}, true);
        m_map = std::move(map);
        m_ui->exportButton->setEnabled(true);
        m_ui->summary->setText(
            tr("Row i: the share of what token i holds after the last layer that came from each "
               "input token. Every row sums to 1."));
    } catch (const std::exception& e) {
        m_ui->rollout->setHeatmap({}, {0.0, 1.0}, false);
        m_ui->summary->setText(QString::fromStdString(e.what()));
    }
}

} // namespace attnviz::app
