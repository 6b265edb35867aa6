#include "app/window/picture_drop.h"

#include "app/panels/model_panel.h"
#include "app/window/shown_names.h"

#include <QDropEvent>
#include <QFileInfo>
#include <QMainWindow>
#include <QMimeData>
#include <QStatusBar>

namespace attnviz::app {
namespace {

// The local picture file a drag carries, if it carries exactly one.
QString droppedPicture(const QMimeData* data)
{
    if (!data || !data->hasUrls() || data->urls().size() != 1 ||
        !data->urls().front().isLocalFile())
        return {};
    const QString path = data->urls().front().toLocalFile();
    const QString ext = QFileInfo(path).suffix().toLower();
    return ext == QLatin1String("png") || ext == QLatin1String("jpg") ||
            ext == QLatin1String("jpeg")
        ? path
        : QString();
}

} // namespace

PictureDrop::PictureDrop(QMainWindow* window, ModelPanel* model)
    : QObject(window)
    , m_window(window)
    , m_model(model)
{
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

bool PictureDrop::open(const QString& path)
{
    if (!m_model->setPicture(path)) {
        m_window->statusBar()->showMessage(
            tr("%1 is a picture: open a Vision Transformer first (the demo shapes, or a Hugging "
               "Face ViT or DeiT folder).")
                .arg(shownFileName(path)));
        return false;
    }
    m_window->statusBar()->showMessage(tr("Running the model on %1").arg(shownFileName(path)));
    return true;
}

bool PictureDrop::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_window ||
        (event->type() != QEvent::DragEnter && event->type() != QEvent::Drop))
        return false;
    auto* drop = static_cast<QDropEvent*>(event); // a QDragEnterEvent is one too
    const QString path = droppedPicture(drop->mimeData());
    if (path.isEmpty())
        return false;
    // Handled here: the window's own handlers would ignore the event again.
    drop->acceptProposedAction();
    if (event->type() == QEvent::Drop)
        open(path);
    return true;
}

} // namespace attnviz::app
