#include "app/window/fit_to_screen.h"

#include <QGuiApplication>
#include <QScreen>
#include <QTimer>
#include <QWidget>

#include <algorithm>

namespace attnviz::app {

void fitToScreen(QWidget& window)
{
    const auto fit = [&window] {
        const QScreen* screen = QGuiApplication::primaryScreen();
        if (window.isFullScreen() || window.isMaximized() || !screen)
            return;
        const QRect room = screen->availableGeometry();
        window.resize(window.size().boundedTo(room.size()));
        const QRect frame = window.frameGeometry();
        window.move(std::clamp(frame.left(), room.left(),
                               std::max(room.left(), room.right() + 1 - frame.width())),
                    std::clamp(frame.top(), room.top(),
                               std::max(room.top(), room.bottom() + 1 - frame.height())));
    };
    fit();
    QTimer::singleShot(0, &window, fit);
}

} // namespace attnviz::app
