#include "app/dialogs/guided_tour.h"

#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QVBoxLayout>

#include <array>

namespace attnviz::app {

namespace {

struct TourStop {
    const char* target; ///< object names of the widgets pointed at, separated by spaces
    const char* title;
    const char* text;
};

// The order a student meets the window in.
constexpr std::array kStops = {
    TourStop{"source", QT_TRANSLATE_NOOP("GuidedTour", "What to look at"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Choose the random-weights playground, a bundled demo model, or a "
                               "model folder (GPT-2, BERT, Llama, Mistral or Qwen2 as Hugging Face "
                               "stores them). The text "
                               "below is what the model reads.")},
    TourStop{"stepNavigator", QT_TRANSLATE_NOOP("GuidedTour", "The steps"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Multi-head attention, one step at a time: from the input through "
                               "Q, K, V, the split into heads, scores, scaling, the mask, softmax "
                               "and the weighted values to the output. ← and → walk through "
                               "them. Today's variants add their own steps: rotary positions "
                               "(RoPE), and FlashAttention's online softmax when the playground's "
                               "softmax tile is set.")},
    TourStop{"formula shape", QT_TRANSLATE_NOOP("GuidedTour", "Formula and shapes"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Each step's formula with the sizes of what you look at filled "
                               "in, and the shape of every tensor with its axes named.")},
    TourStop{"explanation", QT_TRANSLATE_NOOP("GuidedTour", "Why this step"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "A short explanation. Underlined terms are in the glossary: "
                               "point at one to read it, click it to open the glossary (F1).")},
    TourStop{"headGrid", QT_TRANSLATE_NOOP("GuidedTour", "One heatmap per head"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Each head's matrix at this step. Point at a cell for its value; "
                               "click a head to see it alone, right-click for its menu: export, "
                               "the arithmetic of a cell, switch the head off.")},
    TourStop{"", QT_TRANSLATE_NOOP("GuidedTour", "Experiments, lessons and exports"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Experiments compares common mistakes, the scaling of the scores "
                               "and how much each head matters, and shows today's attention: "
                               "rotary positions pair by pair, the KV cache step by step, a "
                               "sliding window's reach, attention sinks. File saves what you see "
                               "as a lesson; Export writes heatmaps for slides and papers; F5 is "
                               "the projector's mode.")},
};

// The bubble's width, and the narrowest it becomes to fit beside a large target.
constexpr int kWidest = 420;
constexpr int kNarrowest = 280;

QString translated(const char* text)
{
    return QCoreApplication::translate("GuidedTour", text);
}

} // namespace

GuidedTour::GuidedTour(QWidget* window)
    : QWidget(window)
    , m_window(window)
    , m_bubble(new QWidget(this))
    , m_text(new QLabel(m_bubble))
    , m_back(new QPushButton(tr("Back"), m_bubble))
    , m_next(new QPushButton(m_bubble))
{
    setObjectName(QStringLiteral("guidedTour"));
    setAttribute(Qt::WA_DeleteOnClose);
    setFocusPolicy(Qt::StrongFocus);
    m_bubble->setObjectName(QStringLiteral("tourBubble"));
    m_bubble->setAutoFillBackground(true);
    m_bubble->setStyleSheet(QStringLiteral(
        "#tourBubble { background: #fffbe6; border: 2px solid #d08700; border-radius: 6px; }"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setObjectName(QStringLiteral("tourText"));
    auto* end = new QPushButton(tr("End the tour"), m_bubble);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(end);
    buttons->addStretch();
    buttons->addWidget(m_back);
    buttons->addWidget(m_next);
    auto* layout = new QVBoxLayout(m_bubble);
    layout->addWidget(m_text);
    layout->addLayout(buttons);
    m_bubble->setMinimumWidth(kNarrowest);
    connect(end, &QPushButton::clicked, this, &QWidget::close);
    connect(m_back, &QPushButton::clicked, this, [this] { showStop(m_stop - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (m_stop + 1 >= stopCount())
            close();
        else
            showStop(m_stop + 1);
    });
    window->installEventFilter(this);
    setGeometry(window->rect());
    show();
    raise();
    setFocus();
    showStop(0);
}

int GuidedTour::stopCount() const
{
    return static_cast<int>(kStops.size());
}

void GuidedTour::showStop(int stop)
{
    m_stop = std::clamp(stop, 0, stopCount() - 1);
    const TourStop& s = kStops[static_cast<std::size_t>(m_stop)];
    m_target = nullptr;
    m_targets.clear();
    for (const QString& name :
         QString::fromLatin1(s.target).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        for (QWidget* w : m_window->findChildren<QWidget*>(name))
            if (w->isVisible()) {
                m_targets.push_back(w);
                break;
            }
    if (!m_targets.empty())
        m_target = m_targets.front();
    m_text->setText(QStringLiteral("<p><b>%1</b> &nbsp; <small>%2</small></p><p>%3</p>")
                        .arg(translated(s.title).toHtmlEscaped(),
                             tr("%1 of %2").arg(m_stop + 1).arg(stopCount()),
                             translated(s.text).toHtmlEscaped()));
    m_back->setEnabled(m_stop > 0);
    m_next->setText(m_stop + 1 == stopCount() ? tr("Done") : tr("Next"));
    place();
    update();
}

QRect GuidedTour::targetRect() const
{
    QRect all;
    for (const QPointer<QWidget>& w : m_targets)
        if (w)
            all |= QRect(w->mapTo(m_window, QPoint(0, 0)), w->size());
    // The highlight's frame is drawn around it.
    return all.isNull() ? all : all.adjusted(-4, -4, 4, 4);
}

void GuidedTour::place()
{
    setGeometry(m_window->rect());
    const auto sized = [this](int w) { return QSize(w, m_bubble->heightForWidth(w)); };
    const QSize size = sized(kWidest);
    const auto inside = [&](QPoint at, QSize s) {
        return QRect(QPoint(std::clamp(at.x(), 8, std::max(8, width() - s.width() - 8)),
                            std::clamp(at.y(), 8, std::max(8, height() - s.height() - 8))),
                     s);
    };
    QRect chosen = inside(rect().center() - QPoint(size.width() / 2, size.height() / 2), size);
    const QRect t = targetRect();
    if (!t.isNull()) {
        // Beside the target (narrower where the room beside it is), below it, or above it: the
        // first place, kept on the window, that covers none of it; else the one that covers
        // least.
        const QSize right = sized(std::clamp(width() - t.right() - 20, kNarrowest, kWidest));
        const QSize left = sized(std::clamp(t.left() - 20, kNarrowest, kWidest));
        const QRect places[] = {
            inside({t.right() + 12, t.top()}, right),
            inside({t.left() - 12 - left.width(), t.top()}, left),
            inside({t.left(), t.bottom() + 12}, size),
            inside({t.left(), t.top() - 12 - size.height()}, size),
            inside({t.right() - size.width(), t.bottom() + 12}, size),
            inside({t.right() - size.width(), t.top() - 12 - size.height()}, size)};
        const auto covered = [&](const QRect& bubble) {
            const QRect both = bubble & t;
            return both.isEmpty() ? 0LL : qint64(both.width()) * both.height();
        };
        chosen = places[0];
        for (const QRect& place : places)
            if (covered(place) < covered(chosen))
                chosen = place;
    }
    m_bubble->setGeometry(chosen);
}

void GuidedTour::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QPainterPath dim;
    dim.addRect(rect());
    if (const QRect t = targetRect(); !t.isNull()) {
        QPainterPath hole;
        hole.addRoundedRect(t, 6, 6);
        dim = dim.subtracted(hole);
        p.setPen(QPen(QColor(0xd0, 0x87, 0x00), 3));
        p.drawRoundedRect(t, 6, 6);
    }
    p.fillPath(dim, QColor(0, 0, 0, 110));
}

void GuidedTour::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Escape:
        close();
        return;
    case Qt::Key_Right:
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
        m_next->click();
        return;
    case Qt::Key_Left:
        showStop(m_stop - 1);
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

bool GuidedTour::event(QEvent* event)
{
    // The window's ← → Esc shortcuts would step the lesson behind the tour: while the tour has
    // the focus, its keys are its own.
    if (event->type() == QEvent::ShortcutOverride) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Escape ||
            key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Space) {
            event->accept();
            return true;
        }
    }
    return QWidget::event(event);
}

bool GuidedTour::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_window && event->type() == QEvent::Resize)
        place();
    return QWidget::eventFilter(watched, event);
}

} // namespace attnviz::app
