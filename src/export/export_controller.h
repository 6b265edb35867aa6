#pragma once

#include "export/export_plan.h"
#include "export/export_writer.h"
#include "export/heatmap_image.h"

#include <QObject>

#include <optional>

namespace attnviz::app {
class MainWindow;
}

namespace attnviz::exporting {

/// The window's Export menu and Copy action. Every export goes through the same planning and
/// rendering as `attnviz-cli export`, so the app and the CLI write the same files for the same
/// view. The path-taking functions do the work (and are what the tests call); the menu actions
/// ask for a path and a size, then call them, and show a refusal as one sentence.
class ExportController : public QObject {
    Q_OBJECT
public:
    explicit ExportController(app::MainWindow* window);

    /// The matrix on screen: the focused head (or head 0) of the current step, titled as the CLI
    /// titles it; nullopt on the input step, which shows no attention matrix.
    std::optional<ExportItem> currentItem() const;
    /// Every matrix of the current step for the shown batch item, on one colour range.
    std::vector<ExportItem> currentStepItems() const;
    QString currentGridTitle() const;

    /// Format from the extension: png, svg, pdf (image), csv or npy (the numbers).
    void exportCurrentHeatmap(const QString& path, ImageSize size) const;
    void exportCurrentGrid(const QString& path, ImageSize size) const;
    /// Every layer × block × head × step (the whole playground module without a model).
    std::vector<QString> exportEverything(const QString& folder, ExportFormat format, ImageSize size, bool overwrite,
                                          const std::function<void(int, int)>& progress = {}) const;
    /// `<base>.safetensors` + `<base>.json`.
    void exportTrace(const QString& base) const;
    void exportHandout(const QString& path) const;
    void copyToClipboard() const;

private:
    void askAndExportImage(bool grid);
    void askAndExportData();
    void askAndExportEverything();
    std::optional<engine::AttentionStep> currentTraceStep() const;
    /// True when the window shows a model run rather than the playground.
    bool showsModel() const;
    /// currentStepItems, or ExportError on the input step.
    std::vector<ExportItem> requireStepItems() const;
    std::vector<ExportItem> planCurrent(const ExportSelection& selection) const;

    app::MainWindow* m_window;
};

} // namespace attnviz::exporting
