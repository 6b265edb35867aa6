#pragma once

#include <QObject>

class QMainWindow;

namespace attnviz::app {

class ModelPanel;

/// A picture dropped on the main window, File ▸ Open lesson's counterpart for a Vision
/// Transformer: one local PNG or JPEG file runs the model shown on it. A drag that carries
/// anything else is refused before the drop.
class PictureDrop : public QObject {
    Q_OBJECT
public:
    /// Takes the drops of `window` for `model`.
    PictureDrop(QMainWindow* window, ModelPanel* model);

    /// Runs the model shown on the picture at `path`: false, with a sentence in the status bar,
    /// when the model shown reads text.
    bool open(const QString& path);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QMainWindow* m_window;
    ModelPanel* m_model;
};

} // namespace attnviz::app
