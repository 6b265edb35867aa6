#include "app/guided_tour.h"

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
    const char* target; ///< object name of the widget pointed at
    const char* title;
    const char* text;
};

// The order a student meets the window in.
constexpr std::array kStops = {
    TourStop{"source", QT_TRANSLATE_NOOP("GuidedTour", "What to look at"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Choose the random-weights playground, a bundled demo model, or a "
                               "model folder (GPT-2 or BERT as Hugging Face stores them). The text "
                               "below is what the model reads.")},
    TourStop{"stepNavigator", QT_TRANSLATE_NOOP("GuidedTour", "The steps"),
             QT_TRANSLATE_NOOP("GuidedTour",
                               "Multi-head attention, one step at a time: from the input through "
                               "Q, K, V, the split into heads, scores, scaling, the mask, softmax "
                               "and the weighted values to the output. ← and → walk through "
                               "them.")},
    TourStop{"formula", QT_TRANSLATE_NOOP("GuidedTour", "Formula and shapes"),
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
                               "and how much each head matters. File saves what you see as a "
                               "lesson; Export writes heatmaps for slides and papers; F5 is the "
                               "projector's mode.")},
};

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
    m_bubble->setFixedWidth(420);
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
    if (*s.target) {
        for (QWidget* w : m_window->findChildren<QWidget*>(QLatin1String(s.target)))
            if (w->isVisible()) {
                m_target = w;
                break;
            }
    }
    m_text->setText(QStringLiteral("<p><b>%1</b> &nbsp; <small>%2</small></p><p>%3</p>")
                        .arg(translated(s.title).toHtmlEscaped(),
                             tr("%1 of %2").arg(m_stop + 1).arg(stopCount()),
                             translated(s.text).toHtmlEscaped()));
    m_back->setEnabled(m_stop > 0);
    m_next->setText(m_stop + 1 == stopCount() ? tr("Done") : tr("Next"));
    place();
    update();
}

void GuidedTour::place()
{
    setGeometry(m_window->rect());
    m_bubble->adjustSize();
    const QSize size = m_bubble->sizeHint().expandedTo(QSize(420, 0));
    QPoint at = rect().center() - QPoint(size.width() / 2, size.height() / 2);
    if (m_target) {
        const QRect t(m_target->mapTo(m_window, QPoint(0, 0)), m_target->size());
        // Beside the target where there is room, else below or above it.
        if (t.right() + 16 + size.width() < width())
            at = {t.right() + 16, t.top()};
        else if (t.left() - 16 - size.width() > 0)
            at = {t.left() - 16 - size.width(), t.top()};
        else if (t.bottom() + 16 + size.height() < height())
            at = {t.left(), t.bottom() + 16};
        else
            at = {t.left(), t.top() - 16 - size.height()};
    }
    at.setX(std::clamp(at.x(), 8, std::max(8, width() - size.width() - 8)));
    at.setY(std::clamp(at.y(), 8, std::max(8, height() - size.height() - 8)));
    m_bubble->setGeometry(QRect(at, size));
}

void GuidedTour::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QPainterPath dim;
    dim.addRect(rect());
    if (m_target) {
        const QRect t =
            QRect(m_target->mapTo(m_window, QPoint(0, 0)), m_target->size()).adjusted(-4, -4, 4, 4);
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
