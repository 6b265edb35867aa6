#include "app/panels/step_panel.h"

#include "app/dialogs/cell_arithmetic_dialog.h"
#include "app/views/head_grid_view.h"
#include "app/views/picture_view.h"
#include "app/views/step_animation.h"
#include "lesson/ablation_difference.h"
#include "lesson/step_view.h"
#include "render/colour_map.h"
#include "render/display_words.h"
#include "render/step_texts.h"

#include <QAbstractTextDocumentLayout>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QResizeEvent>
#include <QScopeGuard>
#include <QScreen>
#include <QSpinBox>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextLayout>
#include <QToolButton>
#include <QToolTip>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnviz::app {

StepPanel::StepPanel(QWidget* parent)
    : QWidget(parent)
    , m_position(new QLabel(this))
    , m_formula(new QLabel(this))
    , m_shape(new QLabel(this))
    , m_ablated(new QLabel(this))
    , m_maskNotes(new QLabel(this))
    , m_maskDrawing(new QLabel(this))
    , m_headLegend(new QLabel(this))
    , m_explanation(new QTextBrowser(this))
    , m_batch(new QSpinBox(this))
    , m_alternative(new QComboBox(this))
    , m_sharedRange(new QCheckBox(tr("One colour range for all heads"), this))
    , m_values(new QCheckBox(tr("Numbers in cells"), this))
    , m_difference(new QCheckBox(tr("Change from all heads on"), this))
    , m_learned(new QCheckBox(tr("Learned matrices"), this))
    , m_allHeads(new QPushButton(tr("Show all heads"), this))
    , m_animate(new QPushButton(tr("▶ Animate"), this))
    , m_grid(new HeadGridView(this))
    , m_patches(new PictureView(this))
    , m_stepButtons(new QButtonGroup(this))
    , m_previous(new QPushButton(tr("◀ Prev"), this))
    , m_next(new QPushButton(tr("Next ▶"), this))
{
    m_position->setObjectName(QStringLiteral("stepPosition"));
    m_position->setWordWrap(true); // a long title wraps rather than widen the window
    m_formula->setObjectName(QStringLiteral("formula"));
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_formula->setWordWrap(true);
    m_shape->setObjectName(QStringLiteral("shape"));
    m_shape->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_shape->setWordWrap(true);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    for (QWidget* edge : {static_cast<QWidget*>(m_formula), static_cast<QWidget*>(m_explanation),
                          m_explanation->viewport()})
        edge->installEventFilter(this);
    // Glossary terms are links: a hover shows the term's explanation, a click opens the glossary.
    m_explanation->setOpenLinks(false);
    connect(m_explanation, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == render::kGlossaryScheme)
            emit termChosen(url.path());
    });
    connect(m_explanation, &QTextBrowser::highlighted, this, [this](const QUrl& url) {
        if (url.scheme() != render::kGlossaryScheme)
            return;
        const render::GlossaryEntry entry = render::glossaryEntry(url.path());
        QToolTip::showText(
            QCursor::pos(),
            QStringLiteral("<b>%1</b>%2").arg(entry.term.toHtmlEscaped(), entry.explanation),
            m_explanation);
    });
    // Batch items count from 0, as layers, heads and positions do.
    m_batch->setPrefix(tr("batch item "));
    m_batch->setMinimum(0);
    m_sharedRange->setChecked(true);
    m_alternative->setObjectName(QStringLiteral("alternative"));
    m_values->setObjectName(QStringLiteral("valuesInCells"));
    m_values->setToolTip(tr("Print each value in its cell where the cells are large enough to "
                            "read it (small matrices, or one head shown alone)"));
    m_difference->setObjectName(QStringLiteral("ablationDifference"));
    m_difference->setToolTip(tr("Show (heads switched off) − (every head on) at every step: "
                                "what switching the heads off changed"));
    m_learned->setObjectName(QStringLiteral("learnedMatrices"));
    m_learned->setToolTip(tr("Show the weight matrices this step applies instead of its result"));
    m_allHeads->setVisible(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_batch);
    controls->addWidget(m_alternative);
    controls->addWidget(m_sharedRange);
    controls->addWidget(m_values);
    controls->addWidget(m_difference);
    controls->addWidget(m_learned);
    controls->addStretch();
    controls->addWidget(m_animate);
    controls->addWidget(m_allHeads);

    auto* navigatorRow = new QWidget(this);
    navigatorRow->setObjectName(QStringLiteral("stepNavigator"));
    auto* navigator = new QHBoxLayout(navigatorRow);
    navigator->setContentsMargins(0, 0, 0, 0);
    navigator->addWidget(m_previous);
    for (lesson::LessonStepIndex i = 0; i < lesson::kLessonSteps.size(); ++i) {
        const render::StepText text = render::stepHeading(lesson::kLessonSteps[i], nullptr);
        auto* button = new QToolButton(this);
        button->setText(text.label);
        button->setCheckable(true);
        button->setToolTip(text.title);
        m_stepButtons->addButton(button, static_cast<int>(i));
        navigator->addWidget(button);
    }
    navigator->addWidget(m_next);
    navigator->addStretch();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_position);
    layout->addWidget(m_formula);
    layout->addWidget(m_shape);
    layout->addLayout(controls);
    layout->addWidget(m_ablated);
    layout->addWidget(m_maskNotes);
    layout->addWidget(m_maskDrawing);
    layout->addWidget(m_headLegend);
    m_patches->setObjectName(QStringLiteral("patches"));
    m_patches->setVisible(false);
    auto* views = new QHBoxLayout;
    views->addWidget(m_patches, 2);
    views->addWidget(m_grid, 3);
    layout->addLayout(views, 1);
    layout->addWidget(m_explanation);
    layout->addWidget(navigatorRow);
    applyFonts();

    connect(m_stepButtons, &QButtonGroup::idClicked, this,
            [this](int id) { setStep(static_cast<lesson::LessonStepIndex>(id)); });
    connect(m_previous, &QPushButton::clicked, this, &StepPanel::previous);
    connect(m_next, &QPushButton::clicked, this, &StepPanel::next);
    connect(m_batch, &QSpinBox::valueChanged, this, [this](int item) {
        refresh();
        emit batchChanged(item);
    });
    connect(m_sharedRange, &QCheckBox::toggled, this, &StepPanel::refresh);
    connect(m_values, &QCheckBox::toggled, this, &StepPanel::refresh);
    connect(m_difference, &QCheckBox::toggled, this, &StepPanel::refresh);
    connect(m_learned, &QCheckBox::toggled, this, &StepPanel::refresh);
    connect(m_alternative, &QComboBox::currentIndexChanged, this, &StepPanel::refresh);
    m_animate->setObjectName(QStringLiteral("animate"));
    m_animate->setToolTip(
        tr("Watch this step happen, with its own numbers: click or press a key to "
           "skip; View ▸ Animations turns them off"));
    m_animation = new StepAnimation(m_grid);
    connect(m_animate, &QPushButton::clicked, this, &StepPanel::animate);
    connect(m_allHeads, &QPushButton::clicked, this, [this] {
        m_grid->showAll();
        m_allHeads->setVisible(false);
    });
    connect(m_grid, &HeadGridView::headFocused, this, [this] { m_allHeads->setVisible(true); });
    connect(m_grid, &HeadGridView::cellClicked, this, [this](int head, int row, int column) {
        // While the arithmetic is open, a click explains the cell clicked instead.
        if (m_arithmetic && m_arithmetic->isVisible() && head >= 0)
            showCellArithmetic(head, row, column);
        emit cellClicked(row, column);
    });
    connect(m_grid, &HeadGridView::headMenuRequested, this, &StepPanel::showHeadMenu);
    m_ablated->setObjectName(QStringLiteral("ablatedHeads"));
    m_ablated->setWordWrap(true);
    m_ablated->setStyleSheet(QStringLiteral("color: #8a4b00;"));
    m_ablated->setVisible(false);
    m_maskNotes->setObjectName(QStringLiteral("maskNotes"));
    m_maskNotes->setWordWrap(true);
    m_maskNotes->setTextFormat(Qt::PlainText);
    m_maskNotes->setVisible(false);
    // Drawing a mask is a mode: it says so where the eye is, above the heatmaps.
    m_maskDrawing->setObjectName(QStringLiteral("maskDrawing"));
    m_maskDrawing->setWordWrap(true);
    m_maskDrawing->setStyleSheet(QStringLiteral(
        "background: #fff4d6; color: #5a3a00; border: 1px solid #e0b050; padding: 4px;"));
    m_maskDrawing->setVisible(false);
    m_headLegend->setObjectName(QStringLiteral("headLegend"));
    m_headLegend->setTextFormat(Qt::RichText);
    m_headLegend->setWordWrap(true);
    m_headLegend->setVisible(false);
}

std::vector<int> StepPanel::ablatedHeads() const
{
    return m_walkthrough ? m_walkthrough->trace->ablatedHeads : std::vector<int>{};
}

std::optional<engine::AttentionStep> StepPanel::drillableStep() const
{
    if (lessonStep().views.empty())
        return std::nullopt;
    const engine::AttentionStep step = lessonStep().views.front().step;
    if (engine::stepInfo(step).scoreShaped || step == engine::AttentionStep::Context ||
        engine::stepInfo(step).stage == engine::AttentionStage::OnlineSoftmax)
        return step;
    return std::nullopt;
}

void StepPanel::showCellArithmetic(int head, int row, int column)
{
    const std::optional<engine::AttentionStep> step = drillableStep();
    if (!m_walkthrough || !step || head < 0 || row < 0 || column < 0)
        return;
    if (!m_arithmetic)
        m_arithmetic = new CellArithmeticDialog(this);
    m_arithmetic->showCell(m_walkthrough, *step, {batchIndex(), head, row, column});
    m_arithmetic->show();
    m_arithmetic->raise();
}

void StepPanel::showHeadMenu(QPoint globalPosition, int head, int row, int column)
{
    if (!m_walkthrough)
        return;
    QMenu menu(this);
    if (head >= 0 && row >= 0 && drillableStep())
        menu.addAction(tr("Show the arithmetic of this cell…"), this,
                       [this, head, row, column] { showCellArithmetic(head, row, column); });
    const std::vector<int> off = ablatedHeads();
    const bool isOff = std::find(off.begin(), off.end(), head) != off.end();
    // Imported attentions are not computed here, so no head can be switched off.
    if (head >= 0 && !m_walkthrough->weightsOnly()) {
        menu.addAction(isOff ? tr("Switch head %1 back on").arg(head)
                             : tr("Switch head %1 off (zero its columns of concat)").arg(head),
                       this, [this, head, isOff] { emit headSwitched(head, !isOff); });
        if (lessonStep().perHead() && m_grid->focusedHead() < 0)
            menu.addAction(tr("Show head %1 alone").arg(head), this,
                           [this, head] { m_grid->focusHead(head); });
    }
    if (m_grid->focusedHead() >= 0)
        menu.addAction(tr("Show all heads"), this, [this] {
            m_grid->showAll();
            m_allHeads->setVisible(false);
        });
    if (!off.empty())
        menu.addAction(tr("Switch every head back on"), this, &StepPanel::allHeadsSwitchedOn);
    if (!menu.isEmpty())
        menu.exec(globalPosition);
}

void StepPanel::setPresentation(bool on)
{
    m_presentation = on;
    m_grid->setMarking(on);
    applyFonts();
}

void StepPanel::applyFonts()
{
    // Relative to the panel's own font, which grows with the window's in presentation mode; on a
    // projector the title and the formula grow more than the rest, since they are read from afar.
    // On a short screen (1280 × 720) the heatmaps need the height more than the title does.
    const bool shortScreen = screen() && screen()->availableGeometry().height() < 800;
    const double emphasis = m_presentation ? (shortScreen ? 1.1 : 1.3) : 1.0;
    QFont title = font();
    title.setPointSizeF(font().pointSizeF() * 1.4 * emphasis);
    title.setBold(true);
    m_position->setFont(title);
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setPointSizeF(font().pointSizeF() * 1.1 * emphasis);
    m_formula->setFont(mono);
    QFont shape = font();
    shape.setPointSizeF(font().pointSizeF() * emphasis);
    m_shape->setFont(shape);
    m_explanationRoom =
        QFontMetrics(font()).lineSpacing() * (m_presentation ? (shortScreen ? 3 : 5) : 7);
    fitExplanation();
}

void StepPanel::fitExplanation()
{
    // The box is as tall as its text, up to m_explanationRoom, and always ends below a whole line:
    // Chinese lines are taller than the font's own line spacing, so a height counted in lines
    // cut the last one through the middle. A longer text scrolls. The lines are those the box
    // laid out at its own width (which a scroll bar narrows: its viewport's resize comes back
    // here).
    QTextDocument* document = m_explanation->document();
    const int frame = 2 * m_explanation->frameWidth();
    bool all = true;
    qreal bottom = 0;
    for (QTextBlock b = document->begin(); b.isValid() && all; b = b.next()) {
        const QRectF box = document->documentLayout()->blockBoundingRect(b);
        for (int i = 0; i < b.layout()->lineCount(); ++i) {
            const QTextLine line = b.layout()->lineAt(i);
            const qreal lineBottom = box.top() + line.y() + line.height();
            if (lineBottom > m_explanationRoom - frame) {
                all = false;
                break;
            }
            bottom = lineBottom;
        }
    }
    const int fixed = static_cast<int>(std::ceil(all ? document->size().height() : bottom)) + frame;
    if (m_explanation->height() != fixed)
        m_explanation->setFixedHeight(fixed);
}

void StepPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        applyFonts();
    QWidget::changeEvent(event);
}

void StepPanel::setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough)
{
    m_walkthrough = std::move(walkthrough);
    m_reason.clear();
    const int batch = m_walkthrough ? m_walkthrough->batch() : 1;
    m_batch->setMaximum(std::max(batch - 1, 0));
    m_batch->setSuffix(tr(" (0 … %1)").arg(std::max(batch - 1, 0)));
    m_batch->setEnabled(batch > 1);
    if (!lessonStep().shownFor(shownTrace())) {
        setStep(lesson::neighbourLessonStep(shownTrace(), m_step, -1));
        return;
    }
    refresh();
}

const engine::AttentionTrace& StepPanel::shownTrace() const
{
    // Without a walkthrough, the steps of the plain module: no optional stage.
    static const engine::AttentionTrace plain;
    return m_walkthrough ? *m_walkthrough->trace : plain;
}

void StepPanel::releaseWalkthrough()
{
    m_walkthrough.reset();
    m_differenceOf.reset();
    m_differenceShown.reset();
    m_animation->release();
    m_grid->releaseMatrices();
}

void StepPanel::clear(const QString& reason)
{
    setWalkthrough(nullptr);
    m_reason = reason;
    refresh();
}

void StepPanel::setStep(lesson::LessonStepIndex step)
{
    if (step >= lesson::kLessonSteps.size())
        return;
    // A step of a stage this module does not have (rotary positions in a plain module): the
    // step before it, which every module has.
    if (!lesson::kLessonSteps[step].shownFor(shownTrace()))
        step = lesson::neighbourLessonStep(shownTrace(), step, -1);
    const bool newStep = step != m_step;
    m_step = step;
    if (newStep) {
        // The chooser lists the new step's alternatives ("show Q_h (queries)" ...).
        const QSignalBlocker block(m_alternative);
        m_alternative->clear();
        for (const lesson::TraceView& view : lessonStep().views)
            m_alternative->addItem(tr("show %1").arg(
                QString::fromUtf8(view.symbol.data(), static_cast<qsizetype>(view.symbol.size()))));
    }
    refresh();
    emit stepChanged(step);
}

void StepPanel::next()
{
    setStep(lesson::neighbourLessonStep(shownTrace(), m_step, +1));
}

void StepPanel::previous()
{
    setStep(lesson::neighbourLessonStep(shownTrace(), m_step, -1));
}

void StepPanel::first()
{
    setStep(0);
}

void StepPanel::last()
{
    setStep(lesson::kLessonSteps.size() - 1);
}

int StepPanel::alternative() const
{
    return std::max(0, m_alternative->currentIndex());
}

void StepPanel::setAlternative(int alternative)
{
    m_alternative->setCurrentIndex(alternative);
}

int StepPanel::batchIndex() const
{
    return m_batch->value();
}

QRect StepPanel::stepArea() const
{
    const int top = m_formula->y();
    const int bottom = m_explanation->geometry().bottom();
    return QRect(0, top, width(), std::max(bottom - top + 1, 200));
}

void StepPanel::addBanner(QWidget* banner)
{
    static_cast<QBoxLayout*>(layout())->insertWidget(1, banner);
}

bool StepPanel::eventFilter(QObject* watched, QEvent* event)
{
    if ((watched == m_formula || watched == m_explanation) &&
        (event->type() == QEvent::Resize || event->type() == QEvent::Move ||
         event->type() == QEvent::LayoutRequest))
        emit stepAreaMoved();
    // A new width (the panel's, or a scroll bar's coming or going) wraps the text again.
    if (watched == m_explanation->viewport() && event->type() == QEvent::Resize &&
        static_cast<QResizeEvent*>(event)->oldSize().width() !=
            static_cast<QResizeEvent*>(event)->size().width())
        fitExplanation();
    return QWidget::eventFilter(watched, event);
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

std::shared_ptr<const lesson::Walkthrough> StepPanel::shownDifference()
{
    if (m_differenceOf != m_walkthrough) {
        m_differenceOf = m_walkthrough;
        m_differenceShown = lesson::ablationDifference(*m_walkthrough);
    }
    return m_differenceShown ? m_differenceShown : m_walkthrough;
}

bool StepPanel::animate()
{
    const lesson::StepAnimationKind kind = lessonStep().animation;
    if (kind == lesson::StepAnimationKind::None || !m_walkthrough)
        return false;
    // The head in focus (else head 0) and the query the teacher marked (else the last, which
    // sees every key under a causal mask).
    const int head = std::max(0, m_grid->focusedHead());
    const int query = m_grid->mark() && m_grid->mark()->kind != render::Highlight::Kind::Column
        ? m_grid->mark()->row
        : static_cast<int>(m_walkthrough->trace->queryLength()) - 1;
    return m_animation->play(m_walkthrough, kind, batchIndex(), head, query);
}

void StepPanel::setAnimationsEnabled(bool on)
{
    m_animationsEnabled = on;
    refresh();
}

void StepPanel::refresh()
{
    const lesson::LessonStep& step = lessonStep();
    m_animation->hide();
    m_animate->setVisible(m_animationsEnabled && m_walkthrough && !m_walkthrough->weightsOnly() &&
                          step.animation != lesson::StepAnimationKind::None);
    render::StepText text = render::stepText(step, m_walkthrough.get());
    text.explanation = render::linkGlossaryTerms(text.explanation, m_glossary);
    const std::vector<lesson::LessonStepIndex> shown = lesson::shownLessonSteps(shownTrace());
    const auto position = std::find(shown.begin(), shown.end(), m_step) - shown.begin();
    m_position->setText(
        tr("Step %1 of %2 — %3").arg(position + 1).arg(shown.size()).arg(text.title));
    for (lesson::LessonStepIndex i = 0; i < lesson::kLessonSteps.size(); ++i) {
        QAbstractButton* button = m_stepButtons->button(static_cast<int>(i));
        const bool visible = std::find(shown.begin(), shown.end(), i) != shown.end();
        button->setVisible(visible);
        // The module's own variant names the button: "× scale" where it does not divide by √d_k.
        if (visible) {
            const render::StepText own =
                render::stepHeading(lesson::kLessonSteps[i], m_walkthrough.get());
            button->setText(own.label);
            button->setToolTip(own.title);
        }
    }
    m_stepButtons->button(static_cast<int>(m_step))->setChecked(true);
    m_previous->setEnabled(m_step != shown.front());
    m_next->setEnabled(m_step != shown.back());
    m_alternative->setVisible(step.alternatives);
    m_explanation->setHtml(text.explanation);
    showPatches(step);
    // The box follows its text (fitExplanation); every return below has set its final text.
    const auto fitWhenDone = qScopeGuard([this] { fitExplanation(); });
    if (!m_walkthrough) {
        // Nothing drawn from an earlier walkthrough may stay: it no longer matches what is chosen.
        if (!m_reason.isEmpty())
            m_explanation->setHtml(
                tr("<p><b>Nothing to show: %1</b></p>").arg(m_reason.toHtmlEscaped()) +
                text.explanation);
        m_formula->clear();
        m_shape->clear();
        m_grid->setMatrices({}, false, true);
        m_allHeads->setVisible(false);
        m_ablated->setVisible(false);
        m_maskNotes->setVisible(false);
        m_maskDrawing->setVisible(false);
        m_headLegend->setVisible(false);
        m_grid->setMaskDrawing(false, {});
        m_difference->setVisible(false);
        m_learned->setVisible(false);
        if (m_arithmetic)
            m_arithmetic->setWalkthrough(nullptr);
        return;
    }
    const bool missing = m_walkthrough->weightsOnly() &&
        (step.views.empty() || !m_walkthrough->trace->has(step.views.front().step));
    if (missing)
        m_explanation->setHtml(
            tr("<p><b>This file holds attention weights only, computed elsewhere: this step has "
               "nothing to show. The softmax step shows the weights.</b></p>") +
            text.explanation);
    // Sizes an import does not know are left out rather than shown as zeros. A formula comes
    // translated from the step's text; only a model's input step is written by the lesson layer
    // (where X came from).
    const QString formula = QString::fromStdString(
        lesson::stepFormula(step, *m_walkthrough, text.formula.toStdString()));
    m_formula->setText(missing                  ? QString()
                           : step.views.empty() ? render::displayed(formula.toStdString())
                                                : formula);
    m_shape->setText(render::displayed(lesson::stepShapes(step, *m_walkthrough)));
    // Decided from what is offered, not from isVisible(), which is false while the panel itself
    // is hidden (the overview shows instead).
    const bool offerLearned = !step.weights.empty() && m_walkthrough->weights();
    const bool offerDifference = m_walkthrough->intact != nullptr;
    m_learned->setVisible(offerLearned);
    m_difference->setVisible(offerDifference);
    m_difference->setEnabled(!step.views.empty());
    const bool learned = offerLearned && m_learned->isChecked();
    const bool difference =
        offerDifference && m_difference->isChecked() && !step.views.empty() && !learned;
    auto maps = learned
        ? lesson::weightHeatmaps(step, *m_walkthrough)
        : lesson::stepHeatmaps(step, difference ? shownDifference() : m_walkthrough, batchIndex(),
                               static_cast<std::size_t>(alternative()));
    std::vector<int> off = ablatedHeads();
    std::sort(off.begin(), off.end());
    QStringList offNames;
    for (const int h : off)
        offNames << QString::number(h);
    const QString heads =
        (off.size() == 1 ? tr("head %1") : tr("heads %1")).arg(offNames.join(QStringLiteral(", ")));
    QString ablatedText = off.empty()
        ? QString()
        : tr("Switched off: %1. A switched-off head's context is still computed, but its columns "
             "of concat are zero, so the output and everything after it no longer hear from it. "
             "Right-click a head to switch it back on.")
              .arg(heads);
    if (difference) {
        float largest = 0;
        for (const lesson::Heatmap& map : maps)
            for (int r = 0; r < map.rows(); ++r)
                for (int c = 0; c < map.cols(); ++c)
                    if (std::isfinite(map.value(r, c)))
                        largest = std::max(largest, std::abs(map.value(r, c)));
        // Heads are off in this block, or elsewhere in the model (the Model box names them).
        const QString why = !off.empty()
            ? tr("Nothing changed at this step: this block's heads are switched off later, at "
                 "the concatenation.")
            : tr("Nothing changed at this step: no head before this block is switched off.");
        if (off.empty())
            ablatedText = tr("No head of this block is off, but heads elsewhere in the model are "
                             "(the Model box names them).");
        ablatedText += QLatin1Char(' ') +
            (largest == 0 ? tr("Shown: (heads off) − (every head on). %1").arg(why)
                          : tr("Shown: (heads off) − (every head on); the largest change at this "
                               "step is %1.")
                                .arg(largest, 0, 'g', 3));
    }
    m_ablated->setText(ablatedText);
    m_ablated->setVisible(!ablatedText.isEmpty());
    // The mask's lengths and warnings, where the mask shows: the score-shaped steps.
    QStringList notes;
    for (const std::string& note : lesson::maskNotes(*m_walkthrough))
        notes << render::displayed(note);
    m_maskNotes->setText(notes.join(QLatin1Char('\n')));
    m_maskNotes->setVisible(step.scoreShaped() && !notes.isEmpty());
    showMaskDrawing(step, learned || difference);
    showHeadLegend(maps);
    for (lesson::Heatmap& map : maps)
        if (map.head >= 0 && std::find(off.begin(), off.end(), map.head) != off.end())
            map.title += tr(" (switched off)").toStdString();
    m_sharedRange->setEnabled(step.perHead());
    // The softmax step shows what makes its rows weights: each sums to 1.
    const bool weights =
        !step.views.empty() && step.views.front().step == engine::AttentionStep::Weights;
    m_grid->setCellText(m_values->isChecked(), weights);
    m_grid->setMatrices(std::move(maps), step.perHead(),
                        m_sharedRange->isChecked() || !step.perHead());
    m_allHeads->setVisible(m_grid->focusedHead() >= 0);
    if (m_arithmetic && m_arithmetic->isVisible()) {
        // The same cell, of the batch item and walkthrough shown, on this step if it has cells
        // to explain.
        lesson::CellAddress cell = m_arithmetic->cell();
        cell.batch = batchIndex();
        m_arithmetic->showCell(m_walkthrough, drillableStep().value_or(m_arithmetic->step()), cell);
    }
}

void StepPanel::showPatches(const lesson::LessonStep& step)
{
    const auto* source =
        m_walkthrough ? std::get_if<lesson::ModelBlockSource>(&m_walkthrough->source) : nullptr;
    if (step.key != "input" || !source || !source->picture || source->layer != 0 ||
        source->patchSize <= 0) {
        m_patches->setVisible(false);
        m_patches->setOverlay(std::nullopt);
        return;
    }
    render::PictureOverlay o;
    o.picture = render::pictureImage(*source->picture);
    o.weights = false;
    o.attention.patchSize = source->patchSize;
    o.attention.patchRows = source->picture->height / source->patchSize;
    o.attention.patchColumns = source->picture->width / source->patchSize;
    const int patches = o.attention.patchRows * o.attention.patchColumns;
    o.attention.patches.assign(static_cast<std::size_t>(patches), 0.0);
    const int tokens = static_cast<int>(m_walkthrough->queryTokens.front().size());
    o.firstPatchToken = tokens - patches;
    o.title = tr("The picture cut into %1 × %2 patches of %3 × %3 pixels: tokens %4 to %5 of X")
                  .arg(o.attention.patchRows)
                  .arg(o.attention.patchColumns)
                  .arg(source->patchSize)
                  .arg(o.firstPatchToken)
                  .arg(tokens - 1);
    o.firstTokensNote = o.firstPatchToken == 2
        ? tr("Rows 0 and 1 of X are [CLS] and [DIST]: learned, from no patch.")
        : tr("Row 0 of X is [CLS]: learned, from no patch.");
    m_patches->setOverlay(std::move(o));
    m_patches->setVisible(true);
}

void StepPanel::showMaskDrawing(const lesson::LessonStep& step, bool otherMatrices)
{
    const auto* playground = std::get_if<lesson::PlaygroundSource>(&m_walkthrough->source);
    const bool custom = playground && playground->settings.mask == lesson::MaskKind::Custom;
    // The learned matrices and the ablation difference are not score matrices to draw on.
    const bool drawing = custom && step.scoreShaped() && !otherMatrices;
    const std::set<std::pair<int, int>> cells =
        custom ? playground->settings.blockedCells : std::set<std::pair<int, int>>{};
    m_grid->setMaskDrawing(drawing, cells);
    m_maskDrawing->setVisible(custom);
    if (!custom)
        return;
    const auto first = lesson::lessonStepShowing(engine::AttentionStep::Scores);
    const auto last = lesson::lessonStepShowing(engine::AttentionStep::Weights);
    const int count = static_cast<int>(cells.size());
    m_maskDrawing->setText(
        drawing ? tr("✎ Drawing the mask: click a cell to block that query–key pair in every "
                     "head, click it again to unblock it. Drawn cells are hatched; choose "
                     "another mask in the settings to stop drawing. Blocked: %1.")
                      .arg(count)
                : tr("✎ The mask is drawn on the score steps, %1 to %2. Blocked so far: %3.")
                      .arg(first ? static_cast<int>(*first) + 1 : 0)
                      .arg(last ? static_cast<int>(*last) + 1 : 0)
                      .arg(count));
}

void StepPanel::showHeadLegend(const std::vector<lesson::Heatmap>& maps)
{
    // Matrices whose columns belong to heads (Q, K, V, concat, the learned matrices) colour
    // them in bands; the legend names each colour, also where a band is too narrow for its
    // number. Shared K/V heads take the colour of the first query head that reads them.
    int heads = 0, keyValueHeads = 0, sharedBy = 0;
    for (const lesson::Heatmap& map : maps)
        for (const lesson::Heatmap::Band& band : map.columnBands) {
            if (band.sharedBy == 0) {
                heads = std::max(heads, band.head + 1);
                continue;
            }
            keyValueHeads = std::max(keyValueHeads, band.head + 1);
            sharedBy = band.sharedBy;
        }
    m_headLegend->setVisible(heads + keyValueHeads > 0);
    const auto swatch = [](int colourOf, const QString& name) {
        return QStringLiteral("<span style=\"color:%1\">■</span>&nbsp;%2")
            .arg(render::headColour(colourOf).name(), name);
    };
    QStringList parts;
    if (heads > 0) {
        QStringList entries;
        for (int h = 0; h < heads; ++h)
            entries << swatch(h, QString::number(h));
        parts << tr("Columns by head: %1").arg(entries.join(QStringLiteral("&nbsp;&nbsp; ")));
    }
    if (keyValueHeads > 0) {
        QStringList entries;
        for (int g = 0; g < keyValueHeads; ++g)
            entries << swatch(
                g * sharedBy,
                tr("KV%1 (heads %2–%3)").arg(g).arg(g * sharedBy).arg((g + 1) * sharedBy - 1));
        parts << tr("K, V columns by K/V head: %1")
                     .arg(entries.join(QStringLiteral("&nbsp;&nbsp; ")));
    }
    m_headLegend->setText(parts.join(QStringLiteral("<br>")));
}

} // namespace attnviz::app
