#include "app/experiments/mistakes_dialog.h"

#include "app/views/heatmap_view.h"
#include "lesson/mistake_walkthrough.h"
#include "lesson/step_view.h"
#include "render/mistake_texts.h"
#include "ui_mistakes_dialog.h"

#include <algorithm>
#include <cmath>

namespace attnviz::app {
namespace {

QString sumsText(const std::vector<double>& sums)
{
    QStringList parts;
    for (double s : sums)
        parts << QString::number(s, 'f', 3);
    return parts.join(QStringLiteral(", "));
}

} // namespace

MistakesDialog::MistakesDialog(QWidget* parent)
    : WalkthroughDialog(parent)
    , m_ui(std::make_unique<Ui::MistakesDialog>())
{
    m_ui->setupUi(this);
    QFont big = m_ui->title->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_ui->title->setFont(big);
    m_ui->code->setFont(QFont(QStringLiteral("DejaVu Sans Mono")));
    m_ui->code->setStyleSheet(QStringLiteral("background: #f4f4f4; padding: 4px;"));
    m_ui->rightCaption->setText(tr("<b>Correct</b>"));
    m_ui->wrongCaption->setText(tr("<b>With the mistake</b>"));
    // A long title wraps in the list rather than hide behind a scroll bar.
    m_ui->mistakes->setWordWrap(true);
    m_ui->mistakes->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    for (const engine::AttentionMistakeInfo& info : engine::kAttentionMistakeTable) {
        auto* item = new QListWidgetItem(render::mistakeText(info.mistake).title, m_ui->mistakes);
        item->setData(Qt::UserRole, static_cast<int>(info.mistake));
    }
    connect(m_ui->mistakes, &QListWidget::currentRowChanged, this, &MistakesDialog::recompute);
    connect(m_ui->head, &QSpinBox::valueChanged, this, &MistakesDialog::redraw);
    connect(m_ui->valuesInCells, &QCheckBox::toggled, this, &MistakesDialog::redraw);
    m_ui->mistakes->setCurrentRow(0);
}

MistakesDialog::~MistakesDialog() = default;

void MistakesDialog::setMistake(engine::AttentionMistake mistake)
{
    m_ui->mistakes->setCurrentRow(
        static_cast<int>(&engine::mistakeInfo(mistake) - engine::kAttentionMistakeTable.data()));
}

engine::AttentionMistake MistakesDialog::mistake() const
{
    const int row = std::max(0, m_ui->mistakes->currentRow());
    return engine::kAttentionMistakeTable[static_cast<std::size_t>(row)].mistake;
}

void MistakesDialog::setHead(int head)
{
    m_ui->head->setValue(head);
}

QString MistakesDialog::consequenceText() const
{
    return m_ui->consequence->text();
}

void MistakesDialog::recompute()
{
    const render::MistakeText text = render::mistakeText(mistake());
    m_ui->title->setText(text.title);
    m_ui->code->setText(text.code);
    m_ui->explanation->setHtml(text.explanation);
    if (deferWhileClosed())
        return;
    m_wrong.reset();
    if (!walkthrough()) {
        m_ui->consequence->setText(tr("Nothing is computed in the main window, so there is "
                                      "nothing to compare."));
    } else {
        auto made = lesson::mistakenWalkthrough(*walkthrough(), mistake());
        if (auto* reason = std::get_if<std::string>(&made))
            m_ui->consequence->setText(
                tr("Cannot compare here: %1.").arg(QString::fromStdString(*reason)));
        else
            m_wrong = std::get<std::shared_ptr<const lesson::Walkthrough>>(std::move(made));
    }
    m_ui->head->setMaximum(walkthrough() ? std::max(0, walkthrough()->heads() - 1) : 0);
    redraw();
}

void MistakesDialog::redraw()
{
    if (!m_wrong) {
        m_ui->right->setHeatmap({}, {0, 1}, false);
        m_ui->wrong->setHeatmap({}, {0, 1}, false);
        return;
    }
    const engine::AttentionStep step = lesson::stepShowingMistake(mistake());
    const bool perHead = engine::stepInfo(step).perHead;
    m_ui->head->setVisible(perHead);
    m_ui->headLabel->setVisible(perHead);
    const int head = m_ui->head->value();
    const std::string name(engine::stepName(step));
    const std::string where = perHead ? tr("head %1 · ").arg(head).toStdString() : std::string();
    const lesson::Heatmap right =
        lesson::traceHeatmap(walkthrough(), step, batch(), head, where + name, name);
    const lesson::Heatmap wrong =
        lesson::traceHeatmap(m_wrong, step, batch(), head, where + name, name);
    // One range for both, so that a brighter cell really is a larger number.
    const auto range = lesson::colourRange({right, wrong});
    const bool numbers = m_ui->valuesInCells->isChecked();
    const bool weights = step == engine::AttentionStep::Weights;
    for (HeatmapView* view : {m_ui->right, m_ui->wrong}) {
        view->setValuesInCells(numbers);
        view->setRowSums(weights);
    }
    m_ui->right->setHeatmap(right, range, false);
    m_ui->wrong->setHeatmap(wrong, range, true);

    QString consequence;
    if (step == engine::AttentionStep::Weights)
        consequence = tr("Row sums of the weights — correct: %1; with the mistake: %2. ")
                          .arg(sumsText(lesson::rowSums(right)), sumsText(lesson::rowSums(wrong)));
    const double change = lesson::largestOutputChange(*walkthrough(), *m_wrong);
    if (std::isinf(change))
        consequence += tr("NaN reaches the output: every later layer and the loss become NaN.");
    else if (change == 0)
        consequence += tr("The output does not change here: nothing in this computation "
                          "triggers the mistake (see how to recognise it).");
    else
        consequence += tr("The output changes by up to %1.").arg(change, 0, 'g', 3);
    m_ui->consequence->setText(consequence);
}

} // namespace attnviz::app
