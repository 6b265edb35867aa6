#pragma once

#include "app/window/view_state.h"
#include "lesson/export_plan.h"
#include "render/export_formats.h"
#include "render/image_export.h"

#include <QObject>

#include <functional>
#include <optional>
#include <stdexcept>

class QAction;
class QMenu;
class QWidget;

namespace attnviz::app {

/// A refused export from the app, one sentence for a message box.
class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The window's Export menu and Copy action. Every export goes through the same planning
/// (lesson/export_plan) and rendering (render/export_formats) as `attnviz-cli export`, so the app
/// and the CLI write the same files for the same view. The path-taking functions do the work
/// (and are what the tests call); the menu actions ask for a path and a size, then call them,
/// show a refusal as one sentence, and say where they saved (saved()).
class ExportMenu : public QObject {
    Q_OBJECT
public:
    /// Fills `menu`; `state` says what the window shows when an action runs.
    ExportMenu(QMenu* menu, QWidget* window, std::function<ViewState()> state);

    /// The matrix on screen: the focused head (or head 0) of the current step's view, titled as
    /// the CLI titles it; nullopt on the input step, which shows no attention matrix.
    std::optional<lesson::ExportItem> currentItem(const lesson::ScaleChoice& scale = {}) const;
    /// Every matrix of the current step for the shown batch item, on one colour range.
    std::vector<lesson::ExportItem> currentStepItems(const lesson::ScaleChoice& scale = {}) const;
    QString currentGridTitle() const;
    /// The whole-model overview as one figure (a row per layer, a column per head, on the
    /// overview's range 0–1); nullopt unless the overview is shown.
    std::optional<render::ExportFigure> overviewFigure() const;

    /// Format from the extension: png, svg, pdf (image), csv or npy (the numbers).
    /// `scale`: the colour range (the figure's stretch must be the scale's).
    void exportCurrentHeatmap(const QString& path, const render::FigureOptions& figure,
                              const lesson::ScaleChoice& scale = {}) const;
    void exportCurrentGrid(const QString& path, const render::FigureOptions& figure,
                           const lesson::ScaleChoice& scale = {}) const;
    /// Every layer × block × head × step (the whole playground module without a model).
    std::vector<std::string> exportEverything(const QString& folder,
                                              const render::ExportFormat& format,
                                              const render::FigureOptions& figure, bool overwrite,
                                              const render::ExportProgress& progress = {},
                                              const lesson::ScaleChoice& scale = {}) const;
    /// `<base>.safetensors` + `<base>.json`.
    void exportTrace(const QString& base) const;
    void exportHandout(const QString& path) const;
    /// One self-contained HTML page: every layer and head's weights of the model shown (or the
    /// module's heads), the walkthrough of the block shown, a ViT's picture.
    void exportWebPage(const QString& path) const;
    void copyToClipboard() const;

signals:
    /// A menu action wrote its files: one sentence in the interface's language saying where.
    void saved(const QString& sentence);

private:
    void askAndExportImage(bool grid);
    void askAndExportData();
    void askAndExportEverything();
    /// currentStepItems, or ExportError on the input step.
    std::vector<lesson::ExportItem> requireStepItems(const lesson::ScaleChoice& scale = {}) const;
    /// The items the overview figure points into.
    mutable std::vector<lesson::ExportItem> m_overviewItems;
    std::vector<lesson::ExportItem> planCurrent(const ViewState& state,
                                                const lesson::ExportSelection& selection,
                                                const lesson::ScaleChoice& scale) const;

    QWidget* m_window;
    std::function<ViewState()> m_state;
    QAction* m_heatmapAction = nullptr;
};

} // namespace attnviz::app
