#pragma once

#include "lesson/colour_scale.h"
#include "render/export_formats.h"
#include "render/image_export.h"

#include <QDialog>

#include <initializer_list>
#include <memory>

namespace Ui {
class ExportDialog;
}

namespace attnviz::app {

/// The Export menu's dialog: format, size, resolution and how the figure looks (colour map,
/// colour range — shared by the step, each map's own, or fixed — and scale, labels, frame,
/// space marks, background), as attnviz-cli export's options (docs/figures.md). It opens with what
/// was chosen last time (QSettings, "export/…"), and remembers what is accepted.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(QWidget* parent, std::initializer_list<render::ExportKind> kinds);
    ~ExportDialog() override;

    const render::ExportFormat& format() const;
    render::FigureOptions figure() const;
    /// The colour range and scale chosen (the figure's stretch is the same).
    lesson::ScaleChoice scale() const;

    /// The form, for tests that fill it as a user would.
    Ui::ExportDialog* ui() const { return m_ui.get(); }

    void accept() override;

private:
    std::unique_ptr<Ui::ExportDialog> m_ui;
};

} // namespace attnviz::app
