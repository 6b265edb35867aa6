#include "render/export_formats.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "io/labelled_matrix.h"
#include "lesson/memory_budget.h"
#include "lesson/trace_export.h"
#include "render/export_figures.h"
#include "render/handout.h"
#include "render/heatmap_layout.h"
#include "render/image_export.h"
#include "render/name_table.h"
#include "render/picture_overlay.h"
#include "render/web_page.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <future>

namespace attnviz::render {
namespace {

QByteArray bytesOf(const std::string& s)
{
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

// The figure with what its colours mean: the map and stretch, then the range and what shares it.
FigureOptions described(const lesson::ExportItem& i, const FigureOptions& figure)
{
    FigureOptions f = figure;
    f.description =
        QString::fromStdString(figure.colouring.describe(i.heatmap.scale) + "; " + i.rangeNote);
    return f;
}

QByteArray pngItem(const lesson::ExportItem& i, const FigureOptions& figure)
{
    return renderImage({i.heatmap}, i.range, {}, ImageFormat::Png, described(i, figure));
}
QByteArray svgItem(const lesson::ExportItem& i, const FigureOptions& figure)
{
    return renderImage({i.heatmap}, i.range, {}, ImageFormat::Svg, described(i, figure));
}
QByteArray pdfItem(const lesson::ExportItem& i, const FigureOptions& figure)
{
    return renderImage({i.heatmap}, i.range, {}, ImageFormat::Pdf, described(i, figure));
}
QByteArray csvItem(const lesson::ExportItem& i, const FigureOptions&)
{
    return bytesOf(io::csvBytes(i.heatmap.matrix));
}
QByteArray npyItem(const lesson::ExportItem& i, const FigureOptions&)
{
    return bytesOf(io::npyBytes(i.heatmap.matrix));
}

template <std::size_t N>
std::vector<std::string> itemFiles(const ExportJob& job, const char (&extension)[N])
{
    std::vector<std::string> names;
    for (const lesson::ExportItem& item : job.items)
        names.push_back(item.baseName + "." + extension);
    return names;
}

// The image files of a job: one per figure of its arrangement.
std::vector<std::string> figureFiles(const ExportJob& job, const std::string& extension)
{
    std::vector<std::string> names;
    for (const ExportFigure& f : arrangeFigures(job.items, job.arrangement))
        names.push_back(f.baseName + "." + extension);
    return names;
}

std::vector<std::string> pngFiles(const ExportJob& job)
{
    return figureFiles(job, "png");
}
std::vector<std::string> svgFiles(const ExportJob& job)
{
    return figureFiles(job, "svg");
}
std::vector<std::string> pdfFiles(const ExportJob& job)
{
    return figureFiles(job, "pdf");
}

void writeFigures(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress,
                  const std::vector<std::string>& names, ImageFormat format)
{
    const std::vector<ExportFigure> figures = arrangeFigures(job.items, job.arrangement);
    for (std::size_t i = 0; i < figures.size(); ++i) {
        // A gathered figure's panels share their step's range (or each says it has its own).
        const QByteArray data = renderFigure(figures[i].content, format,
                                             described(*figures[i].items.front(), job.figure));
        set.add(names[i],
                std::span<const char>(data.constData(), static_cast<std::size_t>(data.size())));
        if (progress)
            progress(static_cast<int>(i + 1), static_cast<int>(figures.size()));
    }
}
std::vector<std::string> csvFiles(const ExportJob& job)
{
    return itemFiles(job, "csv");
}
// Each .npy with its labels beside it: an array alone says nothing of its tokens.
std::vector<std::string> npyFiles(const ExportJob& job)
{
    std::vector<std::string> names;
    for (const lesson::ExportItem& item : job.items) {
        names.push_back(item.baseName + ".npy");
        names.push_back(item.baseName + ".labels.json");
    }
    return names;
}

// Writes each item through `bytes`, one file at a time.
void writeItems(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress,
                const std::vector<std::string>& names,
                QByteArray (*bytes)(const lesson::ExportItem&, const FigureOptions&))
{
    for (std::size_t i = 0; i < job.items.size(); ++i) {
        const QByteArray data = bytes(job.items[i], job.figure);
        set.add(names[i],
                std::span<const char>(data.constData(), static_cast<std::size_t>(data.size())));
        if (progress)
            progress(static_cast<int>(i + 1), static_cast<int>(job.items.size()));
    }
}

// How many PNGs may be in memory at once, drawn or being encoded: a few keep both cores busy, as
// many as the memory budget holds.
std::size_t pngsInFlight(const ExportJob& job)
{
    const std::uint64_t perImage = checkPngMemory(job.figure, job.maxMemory);
    const std::uint64_t limit = lesson::MemoryBudget::forThisMachine(job.maxMemory).limit;
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(limit / perImage, 1, 4));
}

void writePng(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    // Encoding, the slow half, runs on other threads while the next image is drawn.
    const std::size_t capacity = job.items.empty() ? 1 : pngsInFlight(job);
    const std::vector<std::string> names = pngFiles(job);
    const std::vector<ExportFigure> figures = arrangeFigures(job.items, job.arrangement);
    std::deque<std::pair<std::size_t, std::future<QByteArray>>> inFlight;
    int done = 0;
    const auto finishOldest = [&] {
        auto [index, encoded] = std::move(inFlight.front());
        inFlight.pop_front();
        const QByteArray data = encoded.get();
        set.add(names[index],
                std::span<const char>(data.constData(), static_cast<std::size_t>(data.size())));
        if (progress)
            progress(++done, static_cast<int>(figures.size()));
    };
    try {
        for (std::size_t i = 0; i < figures.size(); ++i) {
            QImage image =
                rasterFigure(figures[i].content, described(*figures[i].items.front(), job.figure));
            inFlight.emplace_back(i, std::async(std::launch::async, [image = std::move(image)] {
                                      return encodePng(image);
                                  }));
            if (inFlight.size() >= capacity)
                finishOldest();
        }
        while (!inFlight.empty())
            finishOldest();
    } catch (...) {
        for (auto& [index, encoded] : inFlight)
            encoded.wait();
        throw;
    }
}

void writeSvg(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    writeFigures(job, set, progress, svgFiles(job), ImageFormat::Svg);
}
void writePdf(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    writeFigures(job, set, progress, pdfFiles(job), ImageFormat::Pdf);
}
void writeCsv(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    writeItems(job, set, progress, csvFiles(job), csvItem);
}
void writeNpy(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    const std::vector<std::string> names = npyFiles(job);
    for (std::size_t i = 0; i < job.items.size(); ++i) {
        const QByteArray data = npyItem(job.items[i], job.figure);
        set.add(names[2 * i],
                std::span<const char>(data.constData(), static_cast<std::size_t>(data.size())));
        const std::string labels = io::labelsJson(job.items[i].heatmap.matrix);
        set.add(names[2 * i + 1], std::span<const char>(labels.data(), labels.size()));
        if (progress)
            progress(static_cast<int>(i + 1), static_cast<int>(job.items.size()));
    }
}

std::vector<std::string> traceFiles(const ExportJob&)
{
    return {"trace.safetensors", "trace.json"};
}

void writeTrace(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    const std::string path = set.stagingPath("trace.safetensors");
    if (job.run)
        lesson::writeModelTrace(path, *job.run, true);
    else if (!job.walkthroughs.empty())
        lesson::writeWalkthroughTrace(path, *job.walkthroughs.front().second, true);
    else
        throw engine::InputError("There is no trace to export.");
    set.staged("trace.safetensors");
    set.staged("trace.json");
    if (progress)
        progress(1, 1);
}

std::vector<std::string> handoutFiles(const ExportJob& job)
{
    std::vector<std::string> names;
    for (const auto& [name, w] : job.walkthroughs)
        names.push_back(name + ".pdf");
    return names;
}

void writeHandouts(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    const std::vector<std::string> names = handoutFiles(job);
    for (const auto& [name, w] : job.walkthroughs)
        if (w->weightsOnly())
            throw engine::InputError(io::printable(lesson::walkthroughTitle(*w)) +
                                     " holds attention weights only (computed elsewhere); a "
                                     "handout needs every step of the computation.");
    for (std::size_t i = 0; i < job.walkthroughs.size(); ++i) {
        const auto& [name, w] = job.walkthroughs[i];
        const QByteArray data =
            renderHandout(w, QString::fromStdString(lesson::walkthroughTitle(*w)));
        set.add(names[i],
                std::span<const char>(data.constData(), static_cast<std::size_t>(data.size())));
        if (progress)
            progress(static_cast<int>(i + 1), static_cast<int>(job.walkthroughs.size()));
    }
}

std::vector<std::string> webPageFiles(const ExportJob& job)
{
    if (job.items.empty() && job.walkthroughs.empty())
        return {};
    return {"lesson.html"};
}

void writeWebPage(const ExportJob& job, io::FileSetWriter& set, const ExportProgress& progress)
{
    const QByteArray page = webPageBytes(job);
    set.add("lesson.html",
            std::span<const char>(page.constData(), static_cast<std::size_t>(page.size())));
    if (progress)
        progress(1, 1);
}

} // namespace

const std::vector<ExportFormat>& exportFormats()
{
    static const std::vector<ExportFormat> formats{
        {"png", "PNG image (--width, --height, --dpi)", "PNG image (*.png)", ExportKind::Image,
         pngItem, pngFiles, writePng},
        {"svg", "SVG vector image", "SVG image (*.svg)", ExportKind::Image, svgItem, svgFiles,
         writeSvg},
        {"pdf", "PDF vector image", "PDF image (*.pdf)", ExportKind::Image, pdfItem, pdfFiles,
         writePdf},
        {"csv", "the matrix with token labels in the first row and column",
         "CSV with token labels (*.csv)", ExportKind::Matrix, csvItem, csvFiles, writeCsv},
        {"npy", "the matrix as a NumPy float32 array", "NumPy array (*.npy)", ExportKind::Matrix,
         npyItem, npyFiles, writeNpy},
        {"safetensors", "the whole trace as trace.safetensors plus a trace.json manifest",
         "safetensors (*.safetensors)", ExportKind::Trace, nullptr, traceFiles, writeTrace},
        {"handout", "the walkthrough as a PDF, one per selected layer and block", "PDF (*.pdf)",
         ExportKind::Document, nullptr, handoutFiles, writeHandouts},
        {"html", "one self-contained web page, lesson.html, that opens offline",
         "Web page (*.html)", ExportKind::Document, nullptr, webPageFiles, writeWebPage},
    };
    return formats;
}

// One image takes its pixels and, while it is encoded, its PNG (at worst as large): a 20000 ×
// 20000 image is 2.2 GiB, so even one may be too many.
std::uint64_t checkPngMemory(const FigureOptions& figure, std::optional<std::uint64_t> maxMemory)
{
    const ImageSize size = figure.size;
    const auto pixels =
        static_cast<std::uint64_t>(size.width) * static_cast<std::uint64_t>(size.height);
    const std::uint64_t bytes = 2 * (figure.transparent ? 4 : 3) * pixels;
    lesson::MemoryBudget::forThisMachine(maxMemory).check(
        bytes,
        "Drawing a " + std::to_string(size.width) + " × " + std::to_string(size.height) + " PNG");
    return bytes;
}

QByteArray webPageBytes(const ExportJob& job)
{
    WebPageContent content;
    std::string title = job.pageTitle;
    if (title.empty() && job.run)
        title = job.run->config.name +
            (!job.run->request.image.empty()
                 ? " · " + std::filesystem::path(job.run->request.image).filename().string()
                 : job.run->request.text.empty() ? std::string()
                                                 : " · “" + job.run->request.text + "”");
    else if (title.empty() && !job.walkthroughs.empty())
        title = lesson::walkthroughTitle(*job.walkthroughs.front().second);
    content.title = QString::fromStdString(io::printable(title));
    for (const lesson::ExportItem& item : job.items)
        if (item.place.step == engine::AttentionStep::Weights)
            content.weights.push_back(item);
    if (!job.walkthroughs.empty())
        content.walkthrough = job.walkthroughs.front().second;
    content.steps = job.pageSteps;
    content.heads = job.pageHeads;
    content.colouring = job.figure.colouring;
    content.bits = job.pageBits;
    if (job.run && job.run->picture && job.run->config.image) {
        content.picture = pictureImage(*job.run->picture);
        content.patchRows = job.run->config.image->patchRows();
        content.patchColumns = job.run->config.image->patchColumns();
        content.firstPatchToken = job.run->config.image->extraTokens();
    }
    return renderWebPage(content);
}

const ExportFormat* exportFormat(std::string_view name)
{
    return rowNamed(exportFormats(), name);
}

namespace {

enum class Shortfall { None, Cells, Labels };

// What a figure cannot show at a size: a cell of a multi-panel figure without a whole pixel (a
// single map's cells may share pixels, as a long text's do, but must get some room), or, under
// `--labels all`, a label that would overlap its neighbour.
Shortfall shortfallAt(const ExportFigure& f, const FigureOptions& figure)
{
    const double toPixels = figure.size.dpi / 96.0;
    const bool panels = f.content.maps.size() > 1;
    const std::vector<HeatmapLayout> layouts = figurePanels(f.content, figure);
    for (std::size_t i = 0; i < layouts.size(); ++i) {
        const QRectF cells = layouts[i].cells();
        const lesson::Heatmap& m = f.content.maps[i];
        const double needWidth = panels ? m.cols() : 1, needHeight = panels ? m.rows() : 1;
        if (!(cells.width() * toPixels >= needWidth && cells.height() * toPixels >= needHeight))
            return Shortfall::Cells;
        if (figure.labels == LabelMode::All && layouts[i].labelsCrowded())
            return Shortfall::Labels;
    }
    return Shortfall::None;
}

// One sentence when the figure cannot be drawn at the job's size, naming a size that would do
// (found by growing both sides a quarter at a time up to kMaxImageSide).
std::optional<std::string> figureProblem(const ExportFigure& f, const FigureOptions& figure)
{
    const Shortfall shortfall = shortfallAt(f, figure);
    if (shortfall == Shortfall::None)
        return std::nullopt;
    FigureOptions larger = figure;
    std::optional<ImageSize> enough;
    while (larger.size.width < kMaxImageSide || larger.size.height < kMaxImageSide) {
        larger.size.width =
            std::min(kMaxImageSide, larger.size.width + (larger.size.width + 3) / 4);
        larger.size.height =
            std::min(kMaxImageSide, larger.size.height + (larger.size.height + 3) / 4);
        if (shortfallAt(f, larger) == Shortfall::None) {
            enough = larger.size;
            break;
        }
    }
    const lesson::Heatmap& first = f.content.maps.front();
    const std::string panels = f.content.maps.size() > 1
        ? std::to_string(f.content.maps.size()) + " panels of "
        : std::string();
    const std::string what = io::printable(f.baseName) + " (" + panels +
        std::to_string(first.rows()) + " × " + std::to_string(first.cols()) + ")";
    const std::string size = std::to_string(figure.size.width) + " × " +
        std::to_string(figure.size.height) + " image at " +
        QString::number(figure.fontPoints, 'g', 3).toStdString() + " pt";
    const std::string fix = enough ? "a " + std::to_string(enough->width) + " × " +
            std::to_string(enough->height) + " image would hold them (--width, --height)"
                                   : "no image up to " + std::to_string(kMaxImageSide) + " × " +
            std::to_string(kMaxImageSide) + " holds it: export fewer heads or layers at once";
    if (shortfall == Shortfall::Cells && figure.labels != LabelMode::All)
        return "Every cell of " + what + " does not get a pixel in a " + size + "; " + fix + ".";
    if (shortfall == Shortfall::Cells)
        return "Every cell and every label of " + what + " do not fit a " + size + "; " + fix +
            ", the font smaller, or choose labels auto.";
    return "Every label of " + what + " does not fit a " + size + "; " + fix +
        ", the font smaller, or choose labels auto.";
}

} // namespace

std::string exportFormatList()
{
    return namesOf(exportFormats());
}

namespace {

// One job's files into a set that is not committed yet: checked, then written.
void writeInto(const ExportFormat& format, const ExportJob& job, io::FileSetWriter& set,
               const ExportProgress& progress)
{
    const std::vector<std::string> names = format.files(job);
    if (names.empty())
        throw engine::InputError("The selection holds nothing to export.");
    if (format.kind != ExportKind::Image && job.arrangement != FigureArrangement::Each)
        throw engine::InputError("Figures of several maps are images; " + std::string(format.name) +
                                 " files hold one matrix each, so export them one per matrix.");
    if (format.kind == ExportKind::Image)
        for (const ExportFigure& f : arrangeFigures(job.items, job.arrangement))
            if (auto problem = figureProblem(f, job.figure))
                throw engine::InputError(std::move(*problem));
    set.expect(names);
    format.write(job, set, progress);
}

} // namespace

std::vector<std::string> writeExport(const ExportFormat& format, const ExportJob& job,
                                     const std::string& folder, bool overwrite,
                                     const ExportProgress& progress)
{
    io::FileSetWriter set(folder, overwrite);
    writeInto(format, job, set, progress);
    set.commit();
    return set.paths();
}

std::vector<std::string> writeExports(const ExportFormat& format, std::size_t count,
                                      const std::function<ExportJob(std::size_t)>& jobOf,
                                      const std::string& folder, bool overwrite,
                                      const ExportProgress& progress)
{
    io::FileSetWriter set(folder, overwrite);
    for (std::size_t i = 0; i < count; ++i) {
        writeInto(format, jobOf(i), set, {});
        if (progress)
            progress(static_cast<int>(i + 1), static_cast<int>(count));
    }
    set.commit();
    return set.paths();
}

} // namespace attnviz::render
