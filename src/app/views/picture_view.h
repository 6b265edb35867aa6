#pragma once

#include "render/picture_overlay.h"

#include <QWidget>

#include <optional>

namespace attnviz::app {

/// A Vision Transformer's attention over its picture on screen (render::paintPictureOverlay,
/// the exports' drawing); a click on the picture names the patch under it.
class PictureView : public QWidget {
    Q_OBJECT
public:
    explicit PictureView(QWidget* parent = nullptr);

    /// Nothing shown when empty.
    void setOverlay(std::optional<render::PictureOverlay> overlay);
    const std::optional<render::PictureOverlay>& overlay() const { return m_overlay; }
    /// Where the picture is drawn now (widget coordinates); empty without one.
    QRectF pictureArea() const;

signals:
    /// The patch clicked, row-major from the top left.
    void patchClicked(int patch);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    std::optional<render::PictureOverlay> m_overlay;
};

} // namespace attnviz::app
