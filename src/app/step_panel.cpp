#include "app/step_panel.h"

#include "app/head_grid_view.h"
#include "app/playground.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnviz::app {

StepPanel::StepPanel(QWidget* parent)
    : QWidget(parent)
    , m_position(new QLabel(this))
    , m_formula(new QLabel(this))
    , m_shape(new QLabel(this))
    , m_explanation(new QTextBrowser(this))
    , m_batch(new QSpinBox(this))
    , m_splitPart(new QComboBox(this))
    , m_sharedRange(new QCheckBox(tr("One colour range for all heads"), this))
    , m_allHeads(new QPushButton(tr("Show all heads"), this))
    , m_grid(new HeadGridView(this))
    , m_stepButtons(new QButtonGroup(this))
    , m_previous(new QPushButton(tr("◀ Prev"), this))
    , m_next(new QPushButton(tr("Next ▶"), this))
{
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_position->setFont(big);
    m_position->setObjectName(QStringLiteral("stepPosition"));
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setPointSizeF(font().pointSizeF() * 1.1);
    m_formula->setFont(mono);
    m_formula->setObjectName(QStringLiteral("formula"));
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_formula->setWordWrap(true);
    m_shape->setObjectName(QStringLiteral("shape"));
    m_shape->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_shape->setWordWrap(true);
    m_explanation->setMaximumHeight(130);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    m_batch->setPrefix(tr("batch item "));
    m_batch->setMinimum(1);
    m_sharedRange->setChecked(true);
    m_splitPart->addItem(tr("show Q_h (queries)"));
    m_splitPart->addItem(tr("show K_h (keys)"));
    m_splitPart->addItem(tr("show V_h (values)"));
    m_splitPart->setObjectName(QStringLiteral("splitPart"));
    m_allHeads->setVisible(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_batch);
    controls->addWidget(m_splitPart);
    controls->addWidget(m_sharedRange);
    controls->addStretch();
    controls->addWidget(m_allHeads);

    auto* navigator = new QHBoxLayout;
    navigator->addWidget(m_previous);
    for (const WalkthroughStep step : kWalkthroughSteps) {
        auto* button = new QToolButton(this);
        button->setText(stepText(step).label);
        button->setCheckable(true);
        button->setToolTip(stepText(step).title);
        m_stepButtons->addButton(button, static_cast<int>(step));
        navigator->addWidget(button);
    }
    navigator->addWidget(m_next);
    navigator->addStretch();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_position);
    layout->addWidget(m_formula);
    layout->addWidget(m_shape);
    layout->addLayout(controls);
    layout->addWidget(m_grid, 1);
    layout->addWidget(m_explanation);
    layout->addLayout(navigator);

    connect(m_stepButtons, &QButtonGroup::idClicked, this,
            [this](int id) { setStep(static_cast<WalkthroughStep>(id)); });
    connect(m_previous, &QPushButton::clicked, this, &StepPanel::previous);
    connect(m_next, &QPushButton::clicked, this, &StepPanel::next);
    connect(m_batch, &QSpinBox::valueChanged, this, &StepPanel::refresh);
    connect(m_sharedRange, &QCheckBox::toggled, this, &StepPanel::refresh);
    connect(m_splitPart, &QComboBox::currentIndexChanged, this, &StepPanel::refresh);
    connect(m_allHeads, &QPushButton::clicked, this, [this] {
        m_grid->showAll();
        m_allHeads->setVisible(false);
    });
    connect(m_grid, &HeadGridView::headFocused, this, [this] { m_allHeads->setVisible(true); });
    connect(m_grid, &HeadGridView::cellClicked, this, &StepPanel::cellClicked);
}

void StepPanel::setWalkthrough(std::shared_ptr<const Walkthrough> walkthrough)
{
    m_walkthrough = std::move(walkthrough);
    const int batch = static_cast<int>(m_walkthrough->trace.batchSize());
    m_batch->setMaximum(batch);
    m_batch->setSuffix(tr(" of %1").arg(batch));
    m_batch->setEnabled(batch > 1);
    refresh();
}

void StepPanel::setStep(WalkthroughStep step)
{
    m_step = step;
    refresh();
    emit stepChanged(step);
}

void StepPanel::next()
{
    const int i = static_cast<int>(m_step);
    if (i + 1 < static_cast<int>(kWalkthroughSteps.size()))
        setStep(kWalkthroughSteps[static_cast<std::size_t>(i + 1)]);
}

void StepPanel::previous()
{
    const int i = static_cast<int>(m_step);
    if (i > 0)
        setStep(kWalkthroughSteps[static_cast<std::size_t>(i - 1)]);
}

void StepPanel::first()
{
    setStep(kWalkthroughSteps.front());
}

void StepPanel::last()
{
    setStep(kWalkthroughSteps.back());
}

SplitPart StepPanel::splitPart() const
{
    return static_cast<SplitPart>(m_splitPart->currentIndex());
}

void StepPanel::setSplitPart(SplitPart part)
{
    m_splitPart->setCurrentIndex(static_cast<int>(part));
}

int StepPanel::batchIndex() const
{
    return m_batch->value() - 1;
}

QString StepPanel::positionText() const
{
    return m_position->text();
}

QString StepPanel::formulaText() const
{
    return m_formula->text();
}

QString StepPanel::shapeText() const
{
    return m_shape->text();
}

void StepPanel::refresh()
{
    const int index = static_cast<int>(m_step);
    const StepText text = stepText(m_step, m_walkthrough.get());
    m_position->setText(tr("Step %1 of %2 — %3").arg(index + 1).arg(kWalkthroughSteps.size()).arg(text.title));
    m_stepButtons->button(index)->setChecked(true);
    m_previous->setEnabled(index > 0);
    m_next->setEnabled(index + 1 < static_cast<int>(kWalkthroughSteps.size()));
    m_splitPart->setVisible(m_step == WalkthroughStep::Split);
    m_explanation->setHtml(text.explanation);
    if (!m_walkthrough)
        return;
    m_formula->setText(formulaFor(m_step, *m_walkthrough));
    m_shape->setText(shapesFor(m_step, *m_walkthrough));
    const StepMatrices matrices = matricesFor(m_step, m_walkthrough, m_batch->value() - 1, splitPart());
    m_sharedRange->setEnabled(matrices.perHead);
    m_grid->setMatrices(matrices, m_sharedRange->isChecked() || !matrices.perHead);
    m_allHeads->setVisible(m_grid->focusedHead() >= 0);
}

} // namespace attnviz::app
