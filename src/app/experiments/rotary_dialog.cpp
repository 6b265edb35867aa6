#include "app/experiments/rotary_dialog.h"

#include "app/views/heatmap_view.h"
#include "app/views/rotary_pairs_view.h"
#include "lesson/rotary_pairs.h"
#include "render/display_words.h"
#include "render/text_resource.h"
#include "ui_rotary_dialog.h"

#include <QSignalBlocker>

#include <numbers>

namespace attnviz::app {

RotaryDialog::RotaryDialog(QWidget* parent)
    : WalkthroughDialog(parent)
    , m_ui(std::make_unique<Ui::RotaryDialog>())
{
    m_ui->setupUi(this);
    m_ui->explanation->setHtml(
        render::readTextResource({QStringLiteral(":/experiments/rotary.txt")}).body);
    connect(m_ui->head, &QSpinBox::valueChanged, this, &RotaryDialog::redraw);
    connect(m_ui->query, &QComboBox::currentIndexChanged, this, &RotaryDialog::redraw);
    connect(m_ui->key, &QComboBox::currentIndexChanged, this, &RotaryDialog::redraw);
    connect(m_ui->shift, &QSpinBox::valueChanged, this, &RotaryDialog::redraw);
}

RotaryDialog::~RotaryDialog() = default;

void RotaryDialog::recompute()
{
    if (deferWhileClosed())
        return;
    const std::shared_ptr<const lesson::Walkthrough>& w = walkthrough();
    const QSignalBlocker blockQuery(m_ui->query), blockKey(m_ui->key), blockHead(m_ui->head);
    const int query = m_ui->query->currentIndex(), key = m_ui->key->currentIndex();
    m_ui->query->clear();
    m_ui->key->clear();
    if (w && w->description().rotary) {
        const auto b = static_cast<std::size_t>(batch());
        for (std::size_t i = 0; i < w->queryTokens[b].size(); ++i)
            m_ui->query->addItem(
                QStringLiteral("%1 “%2”").arg(i).arg(QString::fromStdString(w->queryTokens[b][i])));
        for (std::size_t j = 0; j < w->keyTokens[b].size(); ++j)
            m_ui->key->addItem(
                QStringLiteral("%1 “%2”").arg(j).arg(QString::fromStdString(w->keyTokens[b][j])));
        // By default the last query and the first key: the two furthest apart.
        m_ui->query->setCurrentIndex(
            query >= 0 && query < m_ui->query->count() ? query : m_ui->query->count() - 1);
        m_ui->key->setCurrentIndex(key >= 0 && key < m_ui->key->count() ? key : 0);
        m_ui->head->setRange(0, w->heads() - 1);
    }
    redraw();
}

void RotaryDialog::redraw()
{
    const std::shared_ptr<const lesson::Walkthrough>& w = walkthrough();
    const bool rotary = w && w->description().rotary && m_ui->query->count() > 0;
    for (QWidget* c :
         std::initializer_list<QWidget*>{m_ui->head, m_ui->query, m_ui->key, m_ui->shift})
        c->setEnabled(rotary);
    if (!rotary) {
        m_ui->pairs->setPairs(std::nullopt);
        m_ui->angles->setHeatmap({}, {0.0, 1.0}, false);
        m_ui->numbers->setText(
            tr("The block shown has no rotary positions. Open a model of the Llama family (the "
               "bundled <i>modern</i> has them), or choose rotary positions in the playground."));
        return;
    }
    // The angles at the positions drawn: moving every position changes them all.
    lesson::Heatmap angles = *lesson::rotaryAngles(*w, batch(), m_ui->shift->value());
    angles.caption = render::displayed(angles.caption).toStdString();
    angles.title = angles.caption;
    m_ui->angles->setHeatmap(angles, {-std::numbers::pi, std::numbers::pi}, true);
    const std::optional<lesson::RotaryPairs> pairs =
        lesson::rotaryPairs(*w, batch(), m_ui->head->value(), m_ui->query->currentIndex(),
                            m_ui->key->currentIndex(), m_ui->shift->value());
    m_ui->pairs->setPairs(pairs);
    if (!pairs) {
        m_ui->numbers->setText(
            m_ui->shift->value() == 0
                ? tr("This block kept too few of its steps to draw its pairs.")
                : tr("This block cannot be run again at other positions (too large, or not kept "
                     "in full): set the shift to 0."));
        return;
    }
    const lesson::RotaryPairs& p = *pairs;
    double sum = p.unturned;
    for (const lesson::RotaryPair& pair : p.pairs)
        sum += pair.product;
    const QString unturned = p.unturned != 0
        ? tr(" (%1 of it from the features that are not turned)").arg(p.unturned, 0, 'f', 4)
        : QString();
    m_ui->numbers->setText(
        tr("<p>Query at position <b>%1</b>, key at position <b>%2</b>: %3 apart. Pair i turns "
           "by position × its frequency, so the angle between the query's and the key's pair "
           "is their original angle plus (%1 − %2) × frequency: the distance, not the "
           "positions.</p>"
           "<p>Score q · k = the sum of the pairs' products = <b>%4</b>%5; the trace holds "
           "%6.</p>"
           "<p>Every position moved on by %7: the score was %8 before, %6 now (difference "
           "%9).</p>")
            .arg(p.queryPosition)
            .arg(p.keyPosition)
            .arg(p.queryPosition - p.keyPosition)
            .arg(sum, 0, 'f', 4)
            .arg(unturned)
            .arg(p.score, 0, 'f', 4)
            .arg(p.shift)
            .arg(p.unshiftedScore, 0, 'f', 4)
            .arg(std::abs(p.score - p.unshiftedScore), 0, 'g', 2));
}

} // namespace attnviz::app
