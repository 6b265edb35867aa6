#pragma once

#include "app/experiments/experiment_dialog.h"
#include "lesson/model_run.h"
#include "render/picture_overlay.h"

#include <memory>
#include <optional>

namespace Ui {
class PictureAttentionDialog;
}

namespace attnviz::app {

/// Experiments ▸ Attention on the picture: for a Vision Transformer's run, the row of one token
/// (CLS, DeiT's distillation token, or a patch the user clicks) drawn over the picture, from one
/// layer's weights (one head or their mean) or from the rollout of every layer; opacity and
/// colour map of the user's choosing; the classifier's five most probable classes; Export writes
/// the overlay as PNG, SVG or PDF.
class PictureAttentionDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit PictureAttentionDialog(QWidget* parent = nullptr);
    ~PictureAttentionDialog() override;

    /// The overlay drawn (none without a Vision Transformer's run).
    const std::optional<render::PictureOverlay>& overlay() const;
    /// Writes the overlay drawn to `path` (.png, .svg or .pdf), atomically; throws
    /// std::runtime_error with one sentence otherwise.
    void exportTo(const QString& path) const;
    Ui::PictureAttentionDialog& ui() { return *m_ui; }

private:
    /// The run shown; none in the playground. A new model starts again from CLS.
    void follow(const Session& session) override;

    void fillChoices();
    void choosePatch(int patch);
    void redraw();

    std::unique_ptr<Ui::PictureAttentionDialog> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
};

} // namespace attnviz::app
