#include "app/experiments/head_types_dialog.h"

#include "app/panels/model_panel.h"
#include "app/views/heatmap_view.h"
#include "app/window/job_failure.h"
#include "app/window/session.h"
#include "render/display_words.h"
#include "render/text_resource.h"
#include "ui_head_types_dialog.h"

#include <QHeaderView>
#include <QShowEvent>
#include <QTableWidgetItem>

#include <algorithm>

namespace attnviz::app {
namespace {

QString typeTitle(lesson::HeadType type)
{
    switch (type) {
    case lesson::HeadType::PreviousToken:
        return HeadTypesDialog::tr("previous-token score");
    case lesson::HeadType::DuplicateToken:
        return HeadTypesDialog::tr("duplicate-token score");
    case lesson::HeadType::Induction:
        return HeadTypesDialog::tr("induction score (repeated random prompt)");
    case lesson::HeadType::FirstToken:
        return HeadTypesDialog::tr("share on the first token");
    case lesson::HeadType::Distance:
        return HeadTypesDialog::tr("mean attention distance (tokens)");
    case lesson::HeadType::Entropy:
        return HeadTypesDialog::tr("mean row entropy (nats)");
    case lesson::HeadType::PixelDistance:
        return HeadTypesDialog::tr("mean attention distance (pixels)");
    }
    return {};
}

} // namespace

HeadTypesDialog::HeadTypesDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::HeadTypesDialog>())
    , m_work(
          [](const Request& run) -> NewestRequestWins<Request, Outcome>::Job {
              return [run](const std::atomic<bool>&) {
                  Outcome outcome;
                  try {
                      // A picture's patches have no token patterns to repeat.
                      outcome.maps = run->config.image
                          ? lesson::pictureHeadTypes(*run->trace, run->config)
                          : lesson::headTypes(*run->trace,
                                              lesson::runOnRepeatedRandomTokens(*run->model));
                  } catch (...) {
                      outcome.error = jobFailure(
                          std::current_exception(),
                          HeadTypesDialog::tr("There was not enough memory to score the heads."));
                  }
                  return outcome;
              };
          },
          [this](Outcome outcome, JobFate fate) { finish(std::move(outcome), fate); }, [] {})
{
    m_ui->setupUi(this);
    m_ui->explanation->setText(
        render::readTextResource({QStringLiteral(":/experiments/head_types.txt")}).body);
    m_ui->ranking->setColumnCount(4);
    m_ui->ranking->setHorizontalHeaderLabels({tr("layer"), tr("block"), tr("head"), tr("score")});
    m_ui->ranking->verticalHeader()->setVisible(false);
    m_ui->ranking->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_ui->ranking->horizontalHeader()->setStretchLastSection(true);
    connect(m_ui->type, &QComboBox::currentIndexChanged, this, &HeadTypesDialog::redraw);
    connect(m_ui->ranking, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* item = m_ui->ranking->item(row, 0);
        if (!item)
            return;
        emit openHeadRequested(
            item->data(Qt::UserRole).toInt(),
            static_cast<engine::Block>(m_ui->ranking->item(row, 1)->data(Qt::UserRole).toInt()),
            m_ui->ranking->item(row, 2)->data(Qt::UserRole).toInt());
    });
    clear(tr("Open a model: the playground's one module has no layers to compare."));
}

HeadTypesDialog::~HeadTypesDialog() = default;

void HeadTypesDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    if (run == m_run && !m_stale)
        return;
    m_run = run;
    m_stale = !isVisible();
    if (!m_stale)
        score();
}

void HeadTypesDialog::showEvent(QShowEvent* event)
{
    ExperimentDialog::showEvent(event);
    if (std::exchange(m_stale, false))
        score();
}

void HeadTypesDialog::score()
{
    m_maps.clear();
    if (!m_run || !m_run->trace || !m_run->model) {
        m_work.discard();
        clear(m_run && m_run->trace
                  ? tr("An imported attention file holds no model to run on the induction "
                       "prompt.")
                  : tr("Open a model: the playground's one module has no layers to compare."));
        return;
    }
    clear(tr("Scoring every head…"));
    m_work.request(m_run);
}

void HeadTypesDialog::finish(Outcome outcome, JobFate fate)
{
    if (fate != JobFate::Current)
        return;
    if (outcome.maps.empty()) {
        clear(outcome.error.isEmpty() ? tr("This run kept no self-attention weights over two "
                                           "tokens or more: type a longer text.")
                                      : outcome.error);
        emit scored();
        return;
    }
    m_maps = std::move(outcome.maps);
    // The types scored for this run (a Vision Transformer's differ), the choice kept where it can.
    {
        const QSignalBlocker block(m_ui->type);
        const QVariant chosen = m_ui->type->currentData();
        m_ui->type->clear();
        for (const lesson::HeadTypeInfo& info : lesson::kHeadTypes)
            if (std::any_of(m_maps.begin(), m_maps.end(),
                            [&](const lesson::HeadTypeMap& m) { return m.type == info.type; }))
                m_ui->type->addItem(typeTitle(info.type), static_cast<int>(info.type));
        m_ui->type->setCurrentIndex(std::max(0, m_ui->type->findData(chosen)));
    }
    redraw();
    emit scored();
}

void HeadTypesDialog::clear(const QString& message)
{
    for (HeatmapView* view : m_views)
        delete view;
    m_views.clear();
    m_ui->ranking->setRowCount(0);
    m_ui->summary->setText(message);
}

void HeadTypesDialog::redraw()
{
    if (m_maps.empty())
        return;
    for (HeatmapView* view : m_views)
        delete view;
    m_views.clear();
    const auto type = static_cast<lesson::HeadType>(m_ui->type->currentData().toInt());
    std::vector<const lesson::HeadTypeMap*> shown;
    for (const lesson::HeadTypeMap& m : m_maps)
        if (m.type == type)
            shown.push_back(&m);
    // One colour range for the blocks of a score.
    std::vector<lesson::Heatmap> maps;
    for (const lesson::HeadTypeMap* m : shown) {
        lesson::Heatmap h = m->heatmap();
        h.matrix.rowLabels.clear();
        h.matrix.columnLabels.clear();
        h.matrix.rowAxis = tr("layer").toStdString();
        h.matrix.columnAxis = tr("head").toStdString();
        h.caption = tr("%1: %2").arg(blockTitle(m->block), typeTitle(type)).toStdString();
        h.title = h.caption;
        maps.push_back(std::move(h));
    }
    const auto range = lesson::colourRange(maps);
    for (std::size_t i = 0; i < maps.size(); ++i) {
        auto* view = new HeatmapView(this);
        view->setObjectName(QStringLiteral("types ") +
                            QString::fromUtf8(engine::blockName(shown[i]->block)));
        view->setHeatmap(maps[i], range, true);
        view->setValuesInCells(true);
        const engine::Block block = shown[i]->block;
        connect(view, &HeatmapView::cellClicked, this,
                [this, block](int layer, int head) { emit openHeadRequested(layer, block, head); });
        m_ui->maps->addWidget(view, 1);
        view->show();
        m_views.push_back(view);
    }
    // The ranking over every block, the highest score first.
    struct Row {
        int layer, head;
        engine::Block block;
        double score;
    };
    std::vector<Row> rows;
    for (const lesson::HeadTypeMap* m : shown)
        for (const auto& [layer, head] : m->ranking())
            rows.push_back({layer, head, m->block, m->at(layer, head)});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.score > b.score; });
    m_ui->ranking->setRowCount(static_cast<int>(std::min<std::size_t>(rows.size(), 12)));
    for (int r = 0; r < m_ui->ranking->rowCount(); ++r) {
        const Row& row = rows[static_cast<std::size_t>(r)];
        const auto cell = [&](int column, const QString& text, int value) {
            auto* item = new QTableWidgetItem(text);
            item->setData(Qt::UserRole, value);
            m_ui->ranking->setItem(r, column, item);
        };
        cell(0, QString::number(row.layer), row.layer);
        cell(1, blockTitle(row.block), static_cast<int>(row.block));
        cell(2, QString::number(row.head), row.head);
        cell(3, QString::number(row.score, 'f', 3), 0);
    }
    const int tokens = static_cast<int>(m_run->trace->queryIds(shown.front()->block).size());
    m_ui->summary->setText(
        type == lesson::HeadType::PixelDistance
            ? tr("How far, in pixels of the model's input, a patch reaches for the patches it "
                 "attends to, averaged over the patches (Dosovitskiy et al. 2021, Figure 7): "
                 "small for heads that look nearby, large for heads that look across the picture. "
                 "The farthest-reaching head: layer %1, head %2.")
                  .arg(rows.front().layer)
                  .arg(rows.front().head)
            : type == lesson::HeadType::Induction
            ? tr("Scored on a random sequence of ordinary tokens written twice, which only an "
                 "induction head can predict the second half of. The top head: layer %1, head %2.")
                  .arg(rows.front().layer)
                  .arg(rows.front().head)
            : tr("Scored over the %n token(s) of the text shown. The top head: layer %1, head %2.",
                 nullptr, tokens)
                  .arg(rows.front().layer)
                  .arg(rows.front().head));
}

} // namespace attnviz::app
