#pragma once

#include "io/file_set.h"
#include "lesson/export_plan.h"
#include "lesson/model_run.h"
#include "lesson/walkthrough.h"
#include "render/export_figures.h"
#include "render/image_export.h"

#include <QByteArray>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::render {

/// Everything one export may need: the planned matrices, and for whole-trace and handout
/// formats the model run or the walkthroughs they come from.
struct ExportJob {
    std::vector<lesson::ExportItem> items;
    std::shared_ptr<const lesson::ModelRun> run;
    /// (file name without extension, walkthrough): handout pages; a single module's trace.
    std::vector<std::pair<std::string, std::shared_ptr<const lesson::Walkthrough>>> walkthroughs;
    FigureOptions figure;
    /// Images: one per matrix, or several matrices gathered into one figure.
    FigureArrangement arrangement = FigureArrangement::Each;
    /// The user's memory limit (--max-memory, the app's setting): images in flight are counted
    /// against it (MemoryBudget), and a single image larger than it is refused before drawing.
    std::optional<std::uint64_t> maxMemory;
    /// A web page: its title (empty: the model and text), the walkthrough's steps to show (empty:
    /// all) and heads (all when unset), and the bits per stored value (WebPageContent).
    std::string pageTitle;
    std::vector<engine::AttentionStep> pageSteps;
    lesson::IndexSet pageHeads;
    int pageBits = 16;
};

using ExportProgress = std::function<void(int done, int total)>;

enum class ExportKind { Image, Matrix, Trace, Document };

/// A format AttnViz exports to. The CLI's --format values and help, its validation, and the
/// app's dialog filters all come from kExportFormats; a new format is one row (and its writer).
struct ExportFormat {
    std::string_view name; ///< --format value and file extension
    std::string_view help; ///< one line for --help
    std::string_view dialogFilter; ///< "PNG image (*.png)"
    ExportKind kind;
    /// One matrix as this format's bytes (images and matrices only; null otherwise).
    QByteArray (*itemBytes)(const lesson::ExportItem& item, const FigureOptions& figure);
    /// The files a job writes in this format, in order.
    std::vector<std::string> (*files)(const ExportJob& job);
    /// Writes them into the set, reporting progress per file.
    void (*write)(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress);
};

/// Every export format, in the order help texts list them.
const std::vector<ExportFormat>& exportFormats();
/// The format of that name (case-insensitive), if any.
const ExportFormat* exportFormat(std::string_view name);
/// "png, svg, pdf, csv, npy, safetensors or handout".
std::string exportFormatList();

/// The bytes one PNG of `figure` takes while it is drawn and encoded, held to the memory budget of
/// `maxMemory` (--max-memory, the app's setting): throws engine::InputError, "Drawing a 6000 ×
/// 6000 PNG needs about 206.0 MiB of memory; --max-memory allows 64.0 MiB.", before anything is
/// drawn.
std::uint64_t checkPngMemory(const FigureOptions& figure, std::optional<std::uint64_t> maxMemory);

/// The web page of a job (the html format's one file): the head and model views from its weights
/// items, the walkthrough of its first walkthrough, a Vision Transformer's picture from its run;
/// titled `pageTitle`, or by the run's model and text. Throws as render::renderWebPage.
QByteArray webPageBytes(const ExportJob& job);

/// Writes a job into `folder` as one transaction (io::FileSetWriter): the folder is created when
/// missing; an existing file stops it before anything is written unless `overwrite`; a failure
/// part-way leaves nothing behind. Returns the paths written. Throws io::ExistingFileError,
/// io::FileError, or engine::InputError for a job the format cannot write.
std::vector<std::string> writeExport(const ExportFormat& format, const ExportJob& job,
                                     const std::string& folder, bool overwrite,
                                     const ExportProgress& progress = {});
/// Writes `count` jobs as one transaction, as writeExport writes one: job i is made by
/// `jobOf(i)` only once job i − 1 is written, so that a batch of texts holds one text's run and
/// maps at a time. `progress` counts the jobs.
std::vector<std::string> writeExports(const ExportFormat& format, std::size_t count,
                                      const std::function<ExportJob(std::size_t)>& jobOf,
                                      const std::string& folder, bool overwrite,
                                      const ExportProgress& progress = {});

} // namespace attnviz::render
