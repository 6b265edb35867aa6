#include "app/model_overview.h"

#include "app/heatmap_view.h"
#include "engine/model_weights.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace attnviz::app {
namespace {

QStringList labels(const std::vector<std::string>& tokens)
{
    QStringList out;
    for (const std::string& t : tokens)
        out << QString::fromStdString(t);
    return out;
}

} // namespace

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
    layout->addWidget(m_title);
    layout->addLayout(m_grid, 1);
    m_grid->setSpacing(4);
}

void ModelOverview::show(std::shared_ptr<const engine::ModelRun> run, const BlockChoice& choice)
{
    m_run = std::move(run);
    for (HeatmapView* v : m_views)
        delete v;
    m_views.clear();
    const engine::ModelTrace& trace = traceFor(*m_run, choice.decodingStep);
    m_title->setText(tr("Attention weights of every layer and head: %1 · click one to walk through it")
                         .arg(QString::fromLatin1(engine::blockName(choice.block))));

    // One colour scale for the whole grid: weights lie in [0, 1].
    const std::pair<double, double> range{0.0, 1.0};
    int row = 0;
    for (int L = 0; L < trace.layerCount(); ++L) {
        const engine::AttentionBlockTrace* block = trace.attentionBlock(L, choice.block);
        if (!block)
            continue;
        const engine::Tensor& w = block->attention.weights;
        for (int h = 0; h < w.dim(1); ++h) {
            HeatmapData d;
            d.values = w.matrix({0, h}).data();
            d.blockedSource = block->attention.masked.matrix({0, h}).data();
            d.rows = static_cast<int>(w.dim(2));
            d.cols = static_cast<int>(w.dim(3));
            d.title = tr("layer %1 · head %2").arg(L).arg(h);
            d.rowAxis = QStringLiteral("query");
            d.columnAxis = QStringLiteral("key");
            d.rowLabels = labels(trace.queryTokens(choice.block));
            d.columnLabels = labels(trace.keyTokens(choice.block));
            d.scale = ColourScale::Sequential;
            d.frame = headColour(h);
            auto* view = new HeatmapView(this);
            view->setData(d, range, h + 1 == w.dim(1));
            connect(view, &HeatmapView::clicked, this, [this, L, h, b = choice.block] { emit headChosen(L, b, h); });
            m_grid->addWidget(view, row, h);
            m_views.push_back(view);
        }
        ++row;
    }
}

} // namespace attnviz::app
