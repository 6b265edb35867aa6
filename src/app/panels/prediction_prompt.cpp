#include "app/panels/prediction_prompt.h"

#include "app/panels/step_panel.h"
#include "app/window/session.h"
#include "app/window/settings_store.h"
#include "render/display_words.h"
#include "render/question_texts.h"
#include "ui_prediction_prompt.h"

#include <QAction>
#include <QBoxLayout>
#include <QEvent>
#include <QGridLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>

namespace attnviz::app {
namespace {

QString escapedMnemonics(QString text)
{
    return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

QFont scaled(const QFont& base, double factor, bool bold = false)
{
    QFont f = base;
    f.setPointSizeF(base.pointSizeF() * factor);
    f.setBold(bold);
    return f;
}

} // namespace

PredictionPrompt::PredictionPrompt(const Session* session, StepPanel* steps, QMenu* menu)
    : QFrame(steps)
    , m_ui(std::make_unique<Ui::PredictionPrompt>())
    , m_steps(steps)
    , m_action(new QAction(tr("&Predict, then reveal"), this))
    , m_verdict(new QFrame(steps))
    , m_verdictTitle(new QLabel(m_verdict))
    , m_verdictExplanation(new QLabel(m_verdict))
    , m_verdictScore(new QLabel(m_verdict))
    , m_verdictClose(new QToolButton(m_verdict))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("predictionPrompt"));
    setStyleSheet(QStringLiteral("QFrame#predictionPrompt { background: #f3f6fb; "
                                 "border: 1px solid #9fb3c8; border-radius: 6px; }"));
    m_ui->heading->setStyleSheet(QStringLiteral("color: #3d5a80;"));
    m_ui->hint->setStyleSheet(QStringLiteral("color: #555;"));
    m_ui->reveal->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(m_ui->reveal, &QPushButton::clicked, this, &PredictionPrompt::revealWithoutAnswering);

    m_action->setCheckable(true);
    m_action->setObjectName(QStringLiteral("actionPredict"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_action->setToolTip(tr("Before a step is shown, ask one question about it (which key a "
                            "query attends to most, the next shape, the head that matters "
                            "most); one click answers and reveals the step"));
    if (menu) {
        menu->addSeparator();
        menu->addAction(m_action);
    }

    // The verdict: a banner above the revealed step's formula.
    m_verdict->setObjectName(QStringLiteral("predictionVerdict"));
    m_verdict->setFrameShape(QFrame::StyledPanel);
    m_verdictTitle->setObjectName(QStringLiteral("verdictTitle"));
    m_verdictTitle->setTextFormat(Qt::PlainText);
    m_verdictTitle->setWordWrap(true);
    m_verdictExplanation->setObjectName(QStringLiteral("verdictExplanation"));
    m_verdictExplanation->setTextFormat(Qt::PlainText);
    m_verdictExplanation->setWordWrap(true);
    m_verdictExplanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdictScore->setTextFormat(Qt::PlainText);
    m_verdictScore->setStyleSheet(QStringLiteral("color: #555;"));
    m_verdictClose->setText(QStringLiteral("✕"));
    m_verdictClose->setAutoRaise(true);
    m_verdictClose->setToolTip(tr("Hide the verdict"));
    auto* verdictLayout = new QGridLayout(m_verdict);
    verdictLayout->addWidget(m_verdictTitle, 0, 0);
    verdictLayout->addWidget(m_verdictClose, 0, 1, Qt::AlignTop);
    verdictLayout->addWidget(m_verdictExplanation, 1, 0, 1, 2);
    verdictLayout->addWidget(m_verdictScore, 2, 0, 1, 2);
    verdictLayout->setColumnStretch(0, 1);
    connect(m_verdictClose, &QToolButton::clicked, m_verdict, &QWidget::hide);
    m_verdict->hide();
    steps->addBanner(m_verdict);

    hide();
    steps->installEventFilter(this); // its font: presentation mode grows the question with it
    connect(steps, &StepPanel::stepAreaMoved, this, [this] {
        if (m_asking)
            place();
    });
    applyFonts();

    connect(m_steps, &StepPanel::stepChanged, this, [this] {
        m_verdict->hide();
        ask(true);
    });
    connect(session, &Session::shownChanged, this, &PredictionPrompt::onWalkthroughShown);
    // Its replacement is a new walkthrough (onWalkthroughShown), with new numbers for a verdict.
    connect(session, &Session::releasingWalkthrough, this, [this] {
        m_walkthrough.reset();
        m_verdict->hide();
    });
    connect(m_action, &QAction::toggled, this, &PredictionPrompt::setMode);

    QSettings store;
    m_walkthrough = session->walkthrough();
    m_batch = session->batch();
    m_action->setChecked(loadPredictMode(store));
}

PredictionPrompt::~PredictionPrompt() = default;

bool PredictionPrompt::modeOn() const
{
    return m_action->isChecked();
}

QPushButton* PredictionPrompt::revealButton() const
{
    return m_ui->reveal;
}

QString PredictionPrompt::questionText() const
{
    return m_ui->question->text();
}

QString PredictionPrompt::verdictText() const
{
    return m_verdictTitle->text() + QLatin1Char('\n') + m_verdictExplanation->text();
}

QString PredictionPrompt::scoreText() const
{
    if (m_answered == 0)
        return m_skipped ? tr("No answers yet this session (%n skipped).", nullptr, m_skipped)
                         : tr("No answers yet this session.");
    QString text = tr("Score: %1 of %2 right this session.").arg(m_right).arg(m_answered);
    if (m_skipped)
        text += QLatin1Char(' ') + tr("(%n skipped)", nullptr, m_skipped);
    return text;
}

void PredictionPrompt::setMode(bool on)
{
    QSettings store;
    savePredictMode(store, on);
    // A new round: the score and what was revealed start again.
    m_right = m_answered = m_skipped = 0;
    m_revealed.clear();
    updateScore();
    if (!on) {
        hideAll();
        return;
    }
    ask(true);
}

void PredictionPrompt::hideAll()
{
    m_asking = false;
    m_waiting = false;
    m_question.reset();
    hide();
    m_verdict->hide();
}

void PredictionPrompt::ask(bool takeFocus)
{
    m_asking = false;
    m_waiting = false;
    m_question.reset();
    hide();
    if (!modeOn())
        return;
    const auto walkthrough = m_steps->walkthrough();
    if (!walkthrough) {
        m_waiting = true; // asked when the walkthrough arrives
        return;
    }
    if (walkthrough != m_walkthrough) {
        m_walkthrough = walkthrough;
        m_revealed.clear();
    }
    const lesson::LessonStepIndex step = m_steps->step();
    if (m_revealed.count(step))
        return;
    const std::span<const lesson::QuestionKind> kinds = lesson::kLessonSteps[step].questions;
    if (kinds.empty())
        return;
    m_question = lesson::stepQuestion(*walkthrough, step, kinds, m_steps->batchIndex(), m_seed);
    if (!m_question)
        return; // nothing this walkthrough can answer here: the step shows at once
    showQuestion(takeFocus);
}

void PredictionPrompt::showQuestion(bool takeFocus)
{
    const render::QuestionText text = render::questionText(*m_question, *m_walkthrough);
    m_ui->question->setText(text.question);
    m_ui->hint->setText(text.hint);
    qDeleteAll(m_buttons);
    m_buttons.clear();
    auto* grid = static_cast<QGridLayout*>(m_ui->choices->layout());
    const bool wide = m_question->kind == lesson::QuestionKind::Shape ||
        m_question->kind == lesson::QuestionKind::Divisor;
    const int columns = wide ? 2 : 4;
    for (std::size_t i = 0; i < m_question->choices.size(); ++i) {
        const QString label = escapedMnemonics(render::displayed(m_question->choices[i].label));
        auto* button = new QPushButton(
            i < 9 ? QStringLiteral("%1 ▸ %2").arg(i + 1).arg(label) : label, m_ui->choices);
        button->setObjectName(QStringLiteral("choice%1").arg(i));
        if (i < 9)
            button->setShortcut(QKeySequence(Qt::Key_1 + static_cast<int>(i)));
        button->setMinimumHeight(48);
        button->setStyleSheet(
            QStringLiteral("QPushButton { text-align: left; padding: 8px 16px; background: white; "
                           "border: 1px solid #9fb3c8; border-radius: 5px; }"
                           "QPushButton:hover { background: #e3ecf7; }"
                           "QPushButton:focus { border: 2px solid #3d5a80; }"
                           "QPushButton:pressed { background: #cddcee; }"));
        connect(button, &QPushButton::clicked, this, [this, i] { answer(i); });
        grid->addWidget(button, static_cast<int>(i) / columns, static_cast<int>(i) % columns);
        m_buttons << button;
    }
    applyFonts();
    updateScore();
    m_asking = true;
    place();
    show();
    raise();
    if (takeFocus && !m_buttons.isEmpty())
        m_buttons.front()->setFocus(Qt::OtherFocusReason);
}

void PredictionPrompt::answer(std::size_t index)
{
    if (!m_asking || !m_question || index >= m_question->choices.size())
        return;
    reveal(index);
}

void PredictionPrompt::revealWithoutAnswering()
{
    if (m_asking && m_question)
        reveal(std::nullopt);
}

void PredictionPrompt::reveal(std::optional<std::size_t> chosen)
{
    const lesson::StepQuestion q = *m_question;
    const render::QuestionText text = render::questionText(q, *m_walkthrough);
    const QString answer = render::displayed(q.correct().label);
    const bool right = chosen && *chosen == q.answer;
    QString title, colours, ink = QStringLiteral("#263238");
    if (!chosen) {
        ++m_skipped;
        title = tr("The answer: %1").arg(answer);
        colours = QStringLiteral("background: #eceff1; border: 1px solid #90a4ae;");
    } else {
        ++m_answered;
        if (right) {
            ++m_right;
            title = tr("✔ Right: %1").arg(answer);
            colours = QStringLiteral("background: #e6f4e7; border: 1px solid #66bb6a;");
            ink = QStringLiteral("#1b5e20");
        } else {
            title = tr("✘ Not this time: you chose %1; the answer is %2.")
                        .arg(render::displayed(q.choices[*chosen].label), answer);
            colours = QStringLiteral("background: #fdecea; border: 1px solid #e57373;");
            ink = QStringLiteral("#b71c1c");
        }
    }
    m_verdict->setStyleSheet(
        QStringLiteral("QFrame#predictionVerdict { %1 border-radius: 4px; }").arg(colours));
    m_verdictTitle->setStyleSheet(QStringLiteral("color: %1;").arg(ink));
    m_verdictTitle->setText(title);
    m_verdictExplanation->setText(text.explanation);
    m_revealed.insert(q.step);
    ++m_seed; // the next question asks about another row, head or kind
    m_asking = false;
    m_question.reset();
    hide();
    updateScore();
    m_verdict->show();
    m_steps->setFocus(Qt::OtherFocusReason);
    emit revealed(chosen.has_value(), right);
}

void PredictionPrompt::onWalkthroughShown(std::shared_ptr<const lesson::Walkthrough> walkthrough,
                                          int batch)
{
    if (walkthrough == m_walkthrough && batch == m_batch && !m_waiting)
        return;
    const bool changed = walkthrough != m_walkthrough;
    if (changed || batch != m_batch)
        m_verdict->hide(); // its numbers belong to the walkthrough and batch item it was about
    if (changed)
        m_revealed.clear();
    m_walkthrough = walkthrough;
    m_batch = batch;
    if (!modeOn())
        return;
    if (!walkthrough) {
        const bool wasAsking = m_asking || m_waiting;
        hide();
        m_asking = false;
        m_question.reset();
        m_waiting = wasAsking;
        return;
    }
    // New numbers while a question waits (the sentence was edited, another block chosen): the
    // same kind of question about them, without taking the keyboard from what is being typed.
    if (m_asking || m_waiting)
        ask(m_waiting);
}

void PredictionPrompt::updateScore()
{
    m_ui->score->setText(scoreText());
    m_verdictScore->setText(scoreText());
}

void PredictionPrompt::applyFonts()
{
    const QFont base = m_steps->font();
    m_ui->heading->setFont(scaled(base, 1.1, true));
    m_ui->question->setFont(scaled(base, 1.7, true));
    m_ui->hint->setFont(scaled(base, 1.1));
    m_ui->score->setFont(scaled(base, 1.1));
    for (QPushButton* b : m_buttons)
        b->setFont(scaled(base, 1.35));
    m_verdictTitle->setFont(scaled(base, 1.3, true));
    m_verdictExplanation->setFont(scaled(base, 1.1));
}

void PredictionPrompt::place()
{
    setGeometry(m_steps->stepArea());
}

bool PredictionPrompt::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_steps && event->type() == QEvent::FontChange)
        applyFonts();
    if (watched == m_steps && event->type() == QEvent::Resize && m_asking)
        place();
    return QFrame::eventFilter(watched, event);
}

} // namespace attnviz::app
