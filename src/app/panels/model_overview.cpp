#include "app/panels/model_overview.h"

#include "app/panels/model_panel.h"
#include "app/views/heatmap_view.h"
#include "engine/model_weights.h"
#include "lesson/step_view.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace attnviz::app {

ModelOverview::ModelOverview(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_grid(new QGridLayout)
{
    auto* layout = new QVBoxLayout(this);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setWordWrap(true);
    m_title->setObjectName(QStringLiteral("overviewTitle"));
    auto* back = new QPushButton(tr("◀ Back to the steps"), this);
    back->setObjectName(QStringLiteral("overviewBack"));
    back->setToolTip(tr("The step-by-step view of the block shown before"));
    connect(back, &QPushButton::clicked, this, &ModelOverview::backRequested);
    auto* header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(back, 0, Qt::AlignTop);
    auto* explanation = new QLabel(
        tr("Each small map is one head's attention weights (rows: queries, columns: keys), all on "
           "one colour scale from 0 to 1. Compare the heads: some look at the previous token, "
           "some at one position, some spread out. Click a map to walk through that head step "
           "by step."),
        this);
    explanation->setObjectName(QStringLiteral("overviewExplanation"));
    explanation->setWordWrap(true);
    layout->addLayout(header);
    layout->addWidget(explanation);
    layout->addLayout(m_grid, 1);
    m_grid->setSpacing(4);
}

void ModelOverview::show(const std::shared_ptr<const lesson::ModelRun>& run,
                         const lesson::BlockChoice& choice)
{
    for (HeatmapView* v : m_views)
        delete v;
    m_views.clear();
    const engine::ModelTrace& trace = run->traceAt(choice.decodingStep);
    m_title->setText(tr("Whole-model overview: the attention weights of every layer and head (%1)")
                         .arg(blockTitle(choice.block)));

    // One colour scale for the whole grid: weights lie in [0, 1].
    const std::pair<double, double> range{0.0, 1.0};
    int row = 0;
    for (int L = 0; L < trace.layerCount(); ++L) {
        if (!trace.attentionBlock(L, choice.block))
            continue;
        const auto w = lesson::walkthroughForBlock(
            run, {L, choice.block, choice.decodingStep},
            engine::AttentionKeep::only({engine::AttentionStep::Weights}));
        const int heads = w->heads();
        const engine::AttentionDescription& d = w->description();
        for (int h = 0; h < heads; ++h) {
            auto* view = new HeatmapView(this);
            const std::string title =
                (d.groupedKeyValues()
                     ? tr("layer %1 · head %2 (K/V head %3)").arg(L).arg(h).arg(d.keyValueHeadOf(h))
                     : tr("layer %1 · head %2").arg(L).arg(h))
                    .toStdString();
            view->setHeatmap(
                lesson::traceHeatmap(w, engine::AttentionStep::Weights, 0, h, title, "weights"),
                range, h + 1 == heads);
            connect(view, &HeatmapView::clicked, this,
                    [this, L, h, b = choice.block] { emit headChosen(L, b, h); });
            m_grid->addWidget(view, row, h);
            m_views.push_back(view);
        }
        ++row;
    }
}

} // namespace attnviz::app
