#include "export/export_controller.h"

#include "app/head_grid_view.h"
#include "app/main_window.h"
#include "app/model_panel.h"
#include "app/step_panel.h"
#include "app/trace_matrix.h"
#include "export/handout.h"
#include "export/matrix_files.h"
#include "export/trace_files.h"
#include "io/atomic_file.h"
#include "ui_export_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>

namespace attnviz::exporting {
namespace {

const char* const kNoMatrix = "The input step shows no attention matrix; choose a step from Q, K, V on.";

std::vector<app::HeatmapData> mapsOf(const std::vector<ExportItem>& items)
{
    std::vector<app::HeatmapData> maps;
    for (const ExportItem& i : items)
        maps.push_back(i.data);
    return maps;
}

} // namespace
ExportController::ExportController(app::MainWindow* window)
    : QObject(window)
    , m_window(window)
{
    auto* menu = new QMenu(tr("&Export"), window);
    window->menuBar()->insertMenu(window->menuBar()->actions().last(), menu);
    const auto guarded = [this](auto&& work) {
        return [this, work] {
            try {
                work();
            } catch (const std::exception& e) {
                QMessageBox::warning(m_window, tr("Export"), QString::fromStdString(e.what()));
            }
        };
    };
    menu->addAction(tr("Current &heatmap as image…"), this, guarded([this] { askAndExportImage(false); }));
    menu->addAction(tr("Current head &grid as image…"), this, guarded([this] { askAndExportImage(true); }));
    menu->addAction(tr("Current matrix as &CSV or NumPy…"), this, guarded([this] { askAndExportData(); }));
    menu->addAction(tr("&Every layer × head × step…"), this, guarded([this] { askAndExportEverything(); }));
    menu->addSeparator();
    menu->addAction(tr("Whole &trace (safetensors + JSON manifest)…"), this, guarded([this] {
        const QString base = QFileDialog::getSaveFileName(m_window, tr("Export the trace"), QStringLiteral("trace.safetensors"),
                                                          tr("safetensors (*.safetensors)"));
        if (!base.isEmpty())
            exportTrace(base.endsWith(QLatin1String(".safetensors")) ? base.chopped(12) : base);
    }));
    menu->addAction(tr("Classroom &handout (PDF)…"), this, guarded([this] {
        const QString path = QFileDialog::getSaveFileName(m_window, tr("Export the handout"), QStringLiteral("handout.pdf"),
                                                          tr("PDF (*.pdf)"));
        if (!path.isEmpty())
            exportHandout(path);
    }));
    auto* copy = menu->addAction(tr("&Copy view to clipboard"), this, guarded([this] { copyToClipboard(); }));
    copy->setShortcut(QKeySequence::Copy);
    window->addAction(copy);
}

std::optional<engine::AttentionStep> ExportController::currentTraceStep() const
{
    using W = app::WalkthroughStep;
    using A = engine::AttentionStep;
    switch (m_window->stepPanel()->step()) {
    case W::Input: return std::nullopt;
    case W::Projections: return A::QProj;
    case W::Split:
        switch (m_window->stepPanel()->splitPart()) {
        case app::SplitPart::Keys: return A::KHeads;
        case app::SplitPart::Values: return A::VHeads;
        case app::SplitPart::Queries: return A::QHeads;
        }
        return A::QHeads;
    case W::Scores: return A::Scores;
    case W::Scaled: return A::Scaled;
    case W::Masked: return A::Masked;
    case W::Softmax: return A::Weights;
    case W::Context: return A::Context;
    case W::Concat: return A::Concat;
    case W::Output: return A::Output;
    }
    return std::nullopt;
}

std::vector<ExportItem> ExportController::planCurrent(const ExportSelection& selection) const
{
    const app::ModelResult& result = m_window->modelResult();
    if (showsModel()) {
        const app::BlockChoice choice = m_window->modelPanel()->choice();
        ExportSelection s = selection;
        s.layers = {choice.layer};
        s.blocks = {choice.block};
        return planModelExport(*result.model, *result.run, s);
    }
    if (!m_window->walkthrough())
        return {};
    std::vector<ExportItem> items = planWalkthroughExport(m_window->walkthrough(), selection, tr("playground · "));
    if (m_window->walkthrough()->trace.batchSize() > 1) {
        const QString prefix = QStringLiteral("batch%1_").arg(m_window->stepPanel()->batchIndex());
        std::erase_if(items, [&](const ExportItem& i) { return !i.baseName.startsWith(prefix); });
    }
    return items;
}

std::optional<ExportItem> ExportController::currentItem() const
{
    const auto step = currentTraceStep();
    if (!step)
        return std::nullopt;
    ExportSelection s;
    s.steps = {*step};
    if (app::isPerHead(*step))
        s.heads = {std::max(0, m_window->stepPanel()->grid()->focusedHead())};
    const auto items = planCurrent(s);
    return items.empty() ? std::nullopt : std::optional<ExportItem>(items.front());
}

bool ExportController::showsModel() const
{
    return m_window->modelResult().run && !m_window->modelPanel()->playground();
}

std::vector<ExportItem> ExportController::requireStepItems() const
{
    auto items = currentStepItems();
    if (items.empty())
        throw ExportError(kNoMatrix);
    return items;
}

std::vector<ExportItem> ExportController::currentStepItems() const
{
    const auto step = currentTraceStep();
    if (!step)
        return {};
    ExportSelection s;
    s.steps = {*step};
    if (*step == engine::AttentionStep::QProj)
        s.steps = {engine::AttentionStep::QProj, engine::AttentionStep::KProj, engine::AttentionStep::VProj};
    return planCurrent(s);
}

QString ExportController::currentGridTitle() const
{
    const auto items = currentStepItems();
    if (items.empty())
        return {};
    // The items' titles end in "head h · step"; the grid is titled by what they share.
    QString title = items.front().data.title;
    const qsizetype head = title.lastIndexOf(QStringLiteral("head "));
    return head > 0 ? title.left(head) + app::stepText(m_window->stepPanel()->step()).title : title;
}

void ExportController::exportCurrentHeatmap(const QString& path, ImageSize size) const
{
    const auto item = currentItem();
    if (!item)
        throw ExportError(kNoMatrix);
    const QString ext = QFileInfo(path).suffix().toLower();
    const auto format = exportFormatFromName(ext);
    if (!format)
        throw ExportError("Cannot export to '." + ext.toStdString() + "'; use .png, .svg, .pdf, .csv or .npy.");
    writeBytes(path, exportBytes(*item, *format, size));
}

void ExportController::exportCurrentGrid(const QString& path, ImageSize size) const
{
    const auto format = imageFormatFromName(QFileInfo(path).suffix());
    if (!format)
        throw ExportError("A head grid is an image; use .png, .svg or .pdf.");
    const auto items = requireStepItems();
    writeBytes(path, renderGrid(mapsOf(items), items.front().range, currentGridTitle(), *format, size));
}

std::vector<QString> ExportController::exportEverything(const QString& folder, ExportFormat format, ImageSize size,
                                                        bool overwrite, const std::function<void(int, int)>& progress) const
{
    ExportSelection all;
    all.steps = {engine::kAttentionSteps.begin(), engine::kAttentionSteps.end()};
    const app::ModelResult& result = m_window->modelResult();
    const std::vector<ExportItem> items = showsModel()
                                              ? planModelExport(*result.model, *result.run, all)
                                              : planWalkthroughExport(m_window->walkthrough(), all, tr("playground · "));
    return writeExport(items, format, size, folder, overwrite, progress);
}

void ExportController::exportTrace(const QString& base) const
{
    const app::ModelResult& result = m_window->modelResult();
    try {
        if (showsModel()) {
            writeModelTrace(base.toStdString(), *result.model, *result.run->trace);
            return;
        }
        const auto& w = *m_window->walkthrough();
        const auto& s = w.settings;
        const std::string config = "{\"d_model\": " + std::to_string(s.modelWidth) + ", \"num_heads\": " + std::to_string(s.heads) +
                                   ", \"d_k\": " + std::to_string(w.dk()) + ", \"d_v\": " + std::to_string(w.dv()) +
                                   ", \"bias\": " + (s.bias ? "true" : "false") + ", \"seed\": " + std::to_string(s.seed) + "}";
        writeAttentionTrace(base.toStdString(), w.trace, w.queryTokens, w.keyTokens, config);
    } catch (const io::FileError& e) {
        throw ExportError(e.what());
    }
}

void ExportController::exportHandout(const QString& path) const
{
    if (!m_window->walkthrough())
        throw ExportError("Nothing has been computed yet.");
    QString subtitle = tr("random-weights playground");
    if (showsModel()) {
        const app::BlockChoice c = m_window->modelPanel()->choice();
        subtitle = QStringLiteral("%1 · layer %2 · %3")
                       .arg(QString::fromStdString(m_window->modelResult().model->config().name))
                       .arg(c.layer)
                       .arg(QString::fromLatin1(engine::blockName(c.block)));
    }
    writeBytes(path, renderHandout(m_window->walkthrough(), subtitle));
}

void ExportController::copyToClipboard() const
{
    const auto items = requireStepItems();
    QApplication::clipboard()->setImage(renderGridImage(mapsOf(items), items.front().range, currentGridTitle(), ImageSize{}));
}

void ExportController::askAndExportImage(bool grid)
{
    QDialog dialog(m_window);
    Ui::ExportDialog form;
    form.setupUi(&dialog);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString ext = form.format->currentText().toLower();
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export image"), QStringLiteral("attention.%1").arg(ext),
                                                      tr("%1 image (*.%2)").arg(form.format->currentText(), ext));
    if (path.isEmpty())
        return;
    const ImageSize size{form.width->value(), form.height->value(), form.dpi->value()};
    grid ? exportCurrentGrid(path, size) : exportCurrentHeatmap(path, size);
}

void ExportController::askAndExportData()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export the matrix"), QStringLiteral("attention.csv"),
                                                      tr("CSV with token labels (*.csv);;NumPy array (*.npy)"));
    if (!path.isEmpty())
        exportCurrentHeatmap(path, ImageSize{});
}

void ExportController::askAndExportEverything()
{
    QDialog dialog(m_window);
    Ui::ExportDialog form;
    form.setupUi(&dialog);
    dialog.setWindowTitle(tr("Export every layer × head × step"));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString folder = QFileDialog::getExistingDirectory(m_window, tr("Export into folder"));
    if (folder.isEmpty())
        return;
    QProgressDialog progress(tr("Exporting…"), QString(), 0, 1, m_window);
    progress.setWindowModality(Qt::WindowModal);
    const auto format = *exportFormatFromName(form.format->currentText());
    exportEverything(folder, format, {form.width->value(), form.height->value(), form.dpi->value()}, false,
                     [&](int done, int total) {
                         progress.setMaximum(total);
                         progress.setValue(done);
                     });
}

} // namespace attnviz::exporting
