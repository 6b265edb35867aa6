#include "app/attention_sinks_dialog.h"

#include "app/heatmap_view.h"
#include "lesson/attention_sinks.h"
#include "render/display_words.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace attnviz::app {

AttentionSinksDialog::AttentionSinksDialog(QWidget* parent)
    : QDialog(parent)
    , m_summary(new QLabel(this))
    , m_maps(new QHBoxLayout)
{
    setWindowTitle(tr("Attention sinks"));
    setObjectName(QStringLiteral("attentionSinks"));
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
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(why);
    layout->addWidget(m_summary);
    layout->addLayout(m_maps, 1);
    layout->addWidget(buttons);
    resize(900, 620);
    setRun(nullptr);
}

QString AttentionSinksDialog::summary() const
{
    return m_summary->text();
}

void AttentionSinksDialog::setRun(const std::shared_ptr<const lesson::ModelRun>& run)
{
    for (HeatmapView* view : m_views)
        delete view;
    m_views.clear();
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
    std::vector<lesson::Heatmap> all;
    for (lesson::AttentionSinkMap& m : maps) {
        const io::LabelledMatrix& x = m.heatmap.matrix;
        int top = 0;
        for (int c = 1; c < x.rows * x.cols; ++c)
            if (x.values[c] > x.values[top])
                top = c;
        const QString block = render::displayed(engine::blockName(m.block));
        lines << tr("%1: on average the heads put %2 % of their weight on the first token; "
                    "layer %3 head %4 the most, %5 %.")
                     .arg(block)
                     .arg(100 * m.mean, 0, 'f', 1)
                     .arg(top / x.cols)
                     .arg(top % x.cols)
                     .arg(100.0 * x.values[top], 0, 'f', 1);
        // Numbered rows and columns; the axes say what they count (as the importance maps).
        m.heatmap.matrix.rowLabels.clear();
        m.heatmap.matrix.columnLabels.clear();
        m.heatmap.matrix.rowAxis = tr("layer").toStdString();
        m.heatmap.matrix.columnAxis = tr("head").toStdString();
        m.heatmap.caption = tr("%1: share of weight on the first token").arg(block).toStdString();
        m.heatmap.title = m.heatmap.caption;
        all.push_back(m.heatmap);
    }
    m_summary->setText(lines.join(QLatin1Char('\n')));
    const auto range = lesson::colourRange(all);
    for (std::size_t i = 0; i < maps.size(); ++i) {
        auto* view = new HeatmapView(this);
        view->setObjectName(QStringLiteral("sinks ") +
                            QString::fromUtf8(engine::blockName(maps[i].block)));
        view->setHeatmap(all[i], range, true);
        view->setValuesInCells(true);
        m_maps->addWidget(view, 1);
        m_views.push_back(view);
    }
}

} // namespace attnviz::app
