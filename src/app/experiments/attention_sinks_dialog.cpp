#include "app/experiments/attention_sinks_dialog.h"

#include "app/panels/model_panel.h"
#include "app/views/heatmap_view.h"
#include "app/window/job_failure.h"
#include "app/window/session.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace attnviz::app {
namespace {

// The cell with the largest share: (layer, head, share).
std::tuple<int, int, float> largest(const lesson::AttentionSinkMap& m)
{
    const io::LabelledMatrix& x = m.heatmap.matrix;
    int top = 0;
    for (int c = 1; c < x.rows * x.cols; ++c)
        if (x.values[c] > x.values[top])
            top = c;
    return {top / x.cols, top % x.cols, x.values[top]};
}

} // namespace

AttentionSinksDialog::AttentionSinksDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_summary(new QLabel(this))
    , m_maps(new QHBoxLayout)
    , m_remove(new QPushButton(this))
    , m_removalSummary(new QLabel(this))
    , m_removalMaps(new QHBoxLayout)
    , m_work(
          [](const Request& r) -> NewestRequestWins<Request, Outcome>::Job {
              return [r](const std::atomic<bool>&) {
                  Outcome outcome;
                  try {
                      outcome.removed = lesson::withoutFirstToken(
                          *r.run->model, r.run->trace->targetIds, r.maxMemory);
                  } catch (...) {
                      outcome.error = jobFailure(
                          std::current_exception(),
                          AttentionSinksDialog::tr("There was not enough memory to run the "
                                                   "text again."));
                  }
                  return outcome;
              };
          },
          [this](Outcome outcome, JobFate fate) { showRemoval(std::move(outcome), fate); }, [] {})
{
    setWindowTitle(tr("Attention sinks"));
    auto* why = new QLabel(
        tr("<p>Many heads of a trained model put a large share of their weight on the very first "
           "token, whatever it says. Xiao et al. (2023) explain why: the softmax must hand out a "
           "total weight of 1 even when a head finds nothing worth reading, and the first token, "
           "which every later query can see, becomes the place where that weight is parked. "
           "Drop it from a sliding window and such a model falls apart; keep it, and the window "
           "can slide on.</p>"),
        this);
    why->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_remove->setObjectName(QStringLiteral("removeFirstToken"));
    m_remove->setText(tr("&Run the text again without its first token"));
    m_remove->setToolTip(tr("Xiao et al.'s experiment: does the weight move to whatever comes "
                            "first, and how much worse are the same predictions?"));
    connect(m_remove, &QPushButton::clicked, this, &AttentionSinksDialog::removeFirstToken);
    m_removalSummary->setObjectName(QStringLiteral("removalSummary"));
    m_removalSummary->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* removal = new QHBoxLayout;
    removal->addWidget(m_remove);
    removal->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(why);
    layout->addWidget(m_summary);
    layout->addLayout(m_maps, 1);
    layout->addLayout(removal);
    layout->addWidget(m_removalSummary);
    layout->addLayout(m_removalMaps, 1);
    layout->addWidget(buttons);
    resize(960, 760);
}

AttentionSinksDialog::~AttentionSinksDialog() = default;

QString AttentionSinksDialog::summary() const
{
    return m_summary->text();
}

QString AttentionSinksDialog::removalSummary() const
{
    return m_removalSummary->text();
}

std::vector<HeatmapView*> AttentionSinksDialog::showMaps(std::vector<lesson::AttentionSinkMap> maps,
                                                         QHBoxLayout* row, const QString& prefix)
{
    std::vector<lesson::Heatmap> all;
    for (lesson::AttentionSinkMap& m : maps) {
        const QString block = blockTitle(m.block);
        // Numbered rows and columns; the axes say what they count (as the importance maps).
        m.heatmap.matrix.rowLabels.clear();
        m.heatmap.matrix.columnLabels.clear();
        m.heatmap.matrix.rowAxis = tr("layer").toStdString();
        m.heatmap.matrix.columnAxis = tr("head").toStdString();
        m.heatmap.caption =
            (prefix.isEmpty()
                 ? tr("%1: share of weight on the first token").arg(block)
                 : tr("%1, %2: share of weight on the token now first").arg(block, prefix))
                .toStdString();
        m.heatmap.title = m.heatmap.caption;
        all.push_back(m.heatmap);
    }
    // One range for all: the share is a fraction of 1 either way.
    const std::pair<double, double> range{0.0, 1.0};
    std::vector<HeatmapView*> views;
    for (std::size_t i = 0; i < maps.size(); ++i) {
        auto* view = new HeatmapView(this);
        view->setObjectName(
            (prefix.isEmpty() ? QStringLiteral("sinks ") : QStringLiteral("sinks without first ")) +
            QString::fromUtf8(engine::blockName(maps[i].block)));
        view->setHeatmap(all[i], range, true);
        view->setValuesInCells(true);
        row->addWidget(view, 1);
        view->show(); // a layout shows a widget added to a visible window only later
        views.push_back(view);
    }
    return views;
}

void AttentionSinksDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    m_maxMemory = session.memoryLimit();
    if (run == m_run && run)
        return;
    m_run = run;
    for (HeatmapView* view : m_views)
        delete view;
    m_views.clear();
    m_work.discard();
    const bool decoderOnly =
        run && run->model && run->config.architecture == engine::Architecture::DecoderOnly;
    m_remove->setEnabled(decoderOnly && run->trace && run->trace->targetIds.size() >= 3);
    clearRemoval(run && !decoderOnly
                     ? tr("Removing the first token compares next-token predictions: open a "
                          "decoder-only model (the bundled modern or genesis).")
                     : QString());
    if (!run || !run->trace) {
        m_summary->setText(tr("Open a model: a sink is something training makes, and the "
                              "playground's random heads have none."));
        return;
    }
    std::vector<lesson::AttentionSinkMap> maps = lesson::attentionSinkMaps(*run->trace);
    if (maps.empty()) {
        m_summary->setText(tr("This run kept no self-attention weights over two tokens or more: "
                              "type a longer text."));
        return;
    }
    QStringList lines;
    for (const lesson::AttentionSinkMap& m : maps) {
        const auto [layer, head, share] = largest(m);
        lines << tr("%1: on average the heads put %2 % of their weight on the first token; "
                    "layer %3 head %4 the most, %5 %.")
                     .arg(blockTitle(m.block))
                     .arg(100 * m.mean, 0, 'f', 1)
                     .arg(layer)
                     .arg(head)
                     .arg(100.0 * share, 0, 'f', 1);
    }
    m_summary->setText(lines.join(QLatin1Char('\n')));
    m_views = showMaps(std::move(maps), m_maps, QString());
}

void AttentionSinksDialog::clearRemoval(const QString& summary)
{
    for (HeatmapView* view : m_removalViews)
        delete view;
    m_removalViews.clear();
    m_removalSummary->setText(summary);
}

void AttentionSinksDialog::removeFirstToken()
{
    if (!m_run || !m_remove->isEnabled())
        return;
    m_remove->setEnabled(false);
    clearRemoval(tr("Running the text again without its first token…"));
    m_work.request({m_run, m_maxMemory});
}

void AttentionSinksDialog::showRemoval(Outcome outcome, JobFate fate)
{
    if (fate != JobFate::Current)
        return;
    m_remove->setEnabled(true);
    if (!outcome.removed) {
        clearRemoval(outcome.error);
        emit removalShown();
        return;
    }
    const lesson::FirstTokenRemoved& r = *outcome.removed;
    const QString first = QString::fromStdString(
        m_run->model->tokenizer->displayToken(m_run->trace->targetIds.front()));
    double moved = 0;
    for (const lesson::AttentionSinkMap& m : r.without)
        moved += m.mean / static_cast<double>(r.without.size());
    clearRemoval(
        tr("Without “%1”: the heads put %2 % of their weight on the token now first. The same "
           "%3 next tokens are predicted with a loss of %4 nats instead of %5, and %6 of the "
           "greedy choices change.")
            .arg(first.toHtmlEscaped())
            .arg(100 * moved, 0, 'f', 1)
            .arg(r.predictions)
            .arg(r.lossWithout, 0, 'f', 3)
            .arg(r.lossWith, 0, 'f', 3)
            .arg(r.changedChoices));
    m_removalViews = showMaps(r.without, m_removalMaps, tr("without “%1”").arg(first));
    emit removalShown();
}

} // namespace attnviz::app
