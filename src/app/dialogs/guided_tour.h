#pragma once

#include <QPointer>
#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;

namespace attnviz::app {

/// Help ▸ Guided tour: a few stops around the window, each dimming everything but one part of it
/// (found by object name, so the tour follows the widgets wherever the layout puts them) and
/// saying in two sentences what it is for. → or Enter goes on, ← back, Esc ends the tour.
class GuidedTour : public QWidget {
    Q_OBJECT
public:
    /// Covers `window`, on top of it, and shows the first stop.
    explicit GuidedTour(QWidget* window);

    int stop() const { return m_stop; }
    int stopCount() const;
    /// The widget the current stop points at (null when it is not on screen: the stop then
    /// speaks about the whole window).
    QWidget* target() const { return m_target; }
    /// What the current stop highlights, framed, in the tour's coordinates (null without a
    /// target); the bubble never covers it where the window leaves room.
    QRect targetRect() const;
    void showStop(int stop);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();

    QWidget* m_window;
    QPointer<QWidget> m_target;
    std::vector<QPointer<QWidget>> m_targets; ///< every widget the stop highlights
    int m_stop = 0;
    QWidget* m_bubble;
    QLabel* m_text;
    QPushButton* m_back;
    QPushButton* m_next;
};

} // namespace attnviz::app
