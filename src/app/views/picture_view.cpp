#include "app/views/picture_view.h"

#include <QMouseEvent>
#include <QPainter>

namespace attnviz::app {

PictureView::PictureView(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(320, 280);
    setCursor(Qt::CrossCursor);
}

void PictureView::setOverlay(std::optional<render::PictureOverlay> overlay)
{
    m_overlay = std::move(overlay);
    update();
}

QRectF PictureView::pictureArea() const
{
    return m_overlay ? render::pictureRect(*m_overlay, QRectF(rect()), font()) : QRectF();
}

void PictureView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing);
    if (m_overlay)
        render::paintPictureOverlay(painter, QRectF(rect()), *m_overlay, font(), false);
}

void PictureView::mousePressEvent(QMouseEvent* event)
{
    const QRectF area = pictureArea();
    if (!m_overlay || area.isEmpty() || !area.contains(event->position()))
        return;
    const lesson::PictureAttention& a = m_overlay->attention;
    const int column = std::min(
        a.patchColumns - 1,
        static_cast<int>((event->position().x() - area.left()) / area.width() * a.patchColumns));
    const int row = std::min(
        a.patchRows - 1,
        static_cast<int>((event->position().y() - area.top()) / area.height() * a.patchRows));
    emit patchClicked(row * a.patchColumns + column);
}

} // namespace attnviz::app
