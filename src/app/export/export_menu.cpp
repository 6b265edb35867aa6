#include "app/export/export_menu.h"

#include "app/export/export_dialog.h"
#include "app/panels/model_panel.h"
#include "app/window/shown_names.h"
#include "io/atomic_file.h"
#include "lesson/trace_export.h"
#include "render/handout.h"
#include "render/step_texts.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>

namespace attnviz::app {
namespace {

const char* const kNoMatrix =
    QT_TRANSLATE_NOOP("attnviz::app::ExportMenu",
                      "The input step shows no attention matrix; choose a step from Q, K, V on.");

std::vector<lesson::Heatmap> heatmapsOf(const std::vector<lesson::ExportItem>& items)
{
    std::vector<lesson::Heatmap> maps;
    for (const lesson::ExportItem& i : items)
        maps.push_back(i.heatmap);
    return maps;
}

// The trace steps a view of the current lesson step shows: the chosen alternative, or all.
std::vector<engine::AttentionStep> shownSteps(const ViewState& state, bool firstOnly)
{
    const lesson::LessonStep& step = lesson::kLessonSteps[state.step];
    std::vector<engine::AttentionStep> steps;
    for (std::size_t v = 0; v < step.views.size(); ++v)
        if (!step.alternatives || static_cast<int>(v) == state.alternative)
            steps.push_back(step.views[v].step);
    if (firstOnly && steps.size() > 1)
        steps.resize(1);
    return steps;
}

// What a handout shows, in the interface's language (lesson::walkthroughTitle is the CLI's
// English, which attnviz-cli's handouts keep).
QString shownTitle(const lesson::Walkthrough& w)
{
    return std::visit(
        [](const auto& source) -> QString {
            using Source = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<Source, lesson::ModelBlockSource> ||
                          std::is_same_v<Source, lesson::ImportSource>) {
                const std::string& name = [&]() -> const std::string& {
                    if constexpr (std::is_same_v<Source, lesson::ModelBlockSource>)
                        return source.model;
                    else
                        return source.name;
                }();
                return ExportMenu::tr("%1 · layer %2 · %3")
                    .arg(shownText(QString::fromStdString(name), 60))
                    .arg(source.layer)
                    .arg(blockTitle(source.block));
            } else if constexpr (std::is_same_v<Source, lesson::CaseSource>) {
                return shownText(QString::fromStdString(source.name), 60);
            } else {
                return ExportMenu::tr("the random-weights playground");
            }
        },
        w.source);
}

void writeBytes(const QString& path, const QByteArray& bytes)
{
    try {
        io::writeFileAtomically(
            path.toStdString(),
            std::span<const char>(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const io::FileError& e) {
        throw ExportError(e.what());
    }
}

} // namespace

ExportMenu::ExportMenu(QMenu* menu, QWidget* window, std::function<ViewState()> state)
    : QObject(window)
    , m_window(window)
    , m_state(std::move(state))
{
    const auto guarded = [this](auto&& work) {
        return [this, work] {
            try {
                work();
            } catch (const std::exception& e) {
                QMessageBox::warning(m_window, tr("Export"), QString::fromStdString(e.what()));
            }
        };
    };
    m_heatmapAction = menu->addAction(tr("Current &heatmap as image…"), this,
                                      guarded([this] { askAndExportImage(false); }));
    // Which of the heads on screen "the current heatmap" is, said before it is chosen.
    connect(menu, &QMenu::aboutToShow, this, [this] {
        const ViewState shown = m_state();
        const std::vector<engine::AttentionStep> steps = shownSteps(shown, true);
        const bool perHead = !steps.empty() && engine::stepInfo(steps.front()).perHead;
        const int head = std::max(0, shown.focusedHead);
        m_heatmapAction->setText(perHead ? tr("Current &heatmap as image: head %1…").arg(head)
                                         : tr("Current &heatmap as image…"));
        m_heatmapAction->setStatusTip(
            perHead && shown.focusedHead < 0
                ? tr("All heads are shown: head 0 is exported. Click a head to show it alone and "
                     "export that one, or export the head grid.")
                : QString());
    });
    menu->addAction(tr("Current head &grid as image…"), this,
                    guarded([this] { askAndExportImage(true); }));
    menu->addAction(tr("Current matrix as &CSV or NumPy…"), this,
                    guarded([this] { askAndExportData(); }));
    menu->addAction(tr("&Every layer × head × step…"), this,
                    guarded([this] { askAndExportEverything(); }));
    menu->addSeparator();
    menu->addAction(tr("Whole &trace (safetensors + JSON manifest)…"), this, guarded([this] {
                        const QString base = QFileDialog::getSaveFileName(
                            m_window, tr("Export the trace"), QStringLiteral("trace.safetensors"),
                            tr("safetensors (*.safetensors)"));
                        if (base.isEmpty())
                            return;
                        const QString stem =
                            base.endsWith(QLatin1String(".safetensors")) ? base.chopped(12) : base;
                        exportTrace(stem);
                        emit saved(tr("Saved the trace as %1 and %2")
                                       .arg(shownPath(stem + QStringLiteral(".safetensors")),
                                            shownFileName(stem + QStringLiteral(".json"))));
                    }));
    menu->addAction(tr("Classroom &handout (PDF)…"), this, guarded([this] {
                        const QString path = QFileDialog::getSaveFileName(
                            m_window, tr("Export the handout"), QStringLiteral("handout.pdf"),
                            tr("PDF (*.pdf)"));
                        if (path.isEmpty())
                            return;
                        exportHandout(path);
                        emit saved(tr("Saved the handout as %1").arg(shownPath(path)));
                    }));
    menu->addAction(tr("&Web page (one HTML file)…"), this, guarded([this] {
                        const QString path = QFileDialog::getSaveFileName(
                            m_window, tr("Export a web page"), QStringLiteral("lesson.html"),
                            tr("Web page (*.html)"));
                        if (path.isEmpty())
                            return;
                        exportWebPage(path);
                        emit saved(tr("Saved the web page as %1").arg(shownPath(path)));
                    }))
        ->setObjectName(QStringLiteral("actionExportWebPage"));
    auto* copy = menu->addAction(tr("&Copy view to clipboard"), this,
                                 guarded([this] { copyToClipboard(); }));
    copy->setShortcut(QKeySequence::Copy);
    window->addAction(copy);
}

std::vector<lesson::ExportItem> ExportMenu::planCurrent(const ViewState& state,
                                                        const lesson::ExportSelection& selection,
                                                        const lesson::ScaleChoice& scale) const
{
    if (state.run) {
        lesson::ExportSelection s = selection;
        s.layers = {};
        s.layers.add(state.choice.layer, state.choice.layer);
        s.blocks = {state.choice.block};
        return lesson::planModelExport(state.run, s, scale);
    }
    if (!state.walkthrough)
        return {};
    std::vector<lesson::ExportItem> items =
        lesson::planWalkthroughExport(state.walkthrough, selection, "", "playground · ", scale);
    if (state.walkthrough->batch() > 1) {
        const std::string prefix = "batch" + std::to_string(state.batch) + "_";
        std::erase_if(items,
                      [&](const lesson::ExportItem& i) { return !i.baseName.starts_with(prefix); });
    }
    return items;
}

std::optional<lesson::ExportItem> ExportMenu::currentItem(const lesson::ScaleChoice& scale) const
{
    const ViewState state = m_state();
    lesson::ExportSelection s;
    s.steps = shownSteps(state, true);
    if (s.steps.empty())
        return std::nullopt;
    if (engine::stepInfo(s.steps.front()).perHead) {
        const int head = std::max(0, state.focusedHead);
        s.heads.add(head, head);
    }
    const auto items = planCurrent(state, s, scale);
    return items.empty() ? std::nullopt : std::optional<lesson::ExportItem>(items.front());
}

std::vector<lesson::ExportItem> ExportMenu::currentStepItems(const lesson::ScaleChoice& scale) const
{
    const ViewState state = m_state();
    lesson::ExportSelection s;
    s.steps = shownSteps(state, false);
    if (s.steps.empty())
        return {};
    return planCurrent(state, s, scale);
}

std::vector<lesson::ExportItem> ExportMenu::requireStepItems(const lesson::ScaleChoice& scale) const
{
    auto items = currentStepItems(scale);
    if (items.empty())
        throw ExportError(tr(kNoMatrix).toStdString());
    return items;
}

QString ExportMenu::currentGridTitle() const
{
    const auto items = currentStepItems();
    if (items.empty())
        return {};
    // The items' titles end in "head h · step"; the grid is titled by what they share.
    const QString title = QString::fromStdString(items.front().heatmap.title);
    const qsizetype head = title.lastIndexOf(QStringLiteral("head "));
    return head > 0
        ? title.left(head) + render::stepText(lesson::kLessonSteps[m_state().step]).title
        : title;
}

std::optional<render::ExportFigure> ExportMenu::overviewFigure() const
{
    const ViewState state = m_state();
    if (!state.overview)
        return std::nullopt;
    lesson::ExportSelection weights;
    weights.blocks = {state.choice.block};
    lesson::ScaleChoice scale; // the overview's own range: weights lie in [0, 1]
    scale.mode = lesson::RangeMode::Fixed;
    scale.low = 0.0;
    scale.high = 1.0;
    m_overviewItems = lesson::planModelExport(state.run, weights, scale);
    std::vector<render::ExportFigure> figures =
        render::arrangeFigures(m_overviewItems, render::FigureArrangement::Grid);
    if (figures.empty())
        return std::nullopt;
    return std::move(figures.front());
}

void ExportMenu::exportCurrentHeatmap(const QString& path, const render::FigureOptions& figure,
                                      const lesson::ScaleChoice& scale) const
{
    if (const auto overview = overviewFigure()) {
        // The overview holds no one matrix: as an image it is the whole figure.
        const render::ExportFormat* format =
            render::exportFormat(QFileInfo(path).suffix().toLower().toStdString());
        if (!format || format->kind != render::ExportKind::Image)
            throw ExportError(tr("The overview shows every layer and head; export it as an image "
                                 "(.png, .svg or .pdf), or its matrices with Every layer × head "
                                 "× step.")
                                  .toStdString());
        exportCurrentGrid(path, figure, scale);
        return;
    }
    const auto item = currentItem(scale);
    if (!item)
        throw ExportError(tr(kNoMatrix).toStdString());
    const QString ext = QFileInfo(path).suffix().toLower();
    const render::ExportFormat* format = render::exportFormat(ext.toStdString());
    if (!format || !format->itemBytes)
        throw ExportError(tr("Cannot export to '.%1'; use .png, .svg, .pdf, .csv or .npy.")
                              .arg(ext)
                              .toStdString());
    writeBytes(path, format->itemBytes(*item, figure));
}

void ExportMenu::exportCurrentGrid(const QString& path, const render::FigureOptions& figure,
                                   const lesson::ScaleChoice& scale) const
{
    const render::ExportFormat* format =
        render::exportFormat(QFileInfo(path).suffix().toStdString());
    if (!format || format->kind != render::ExportKind::Image)
        throw ExportError(tr("A head grid is an image; use .png, .svg or .pdf.").toStdString());
    const auto imageFormatOf = [&] {
        return format->name == "png" ? render::ImageFormat::Png
            : format->name == "svg"  ? render::ImageFormat::Svg
                                     : render::ImageFormat::Pdf;
    };
    if (const auto overview = overviewFigure()) {
        writeBytes(path, render::renderFigure(overview->content, imageFormatOf(), figure));
        return;
    }
    const auto items = requireStepItems(scale);
    render::FigureContent content{heatmapsOf(items), {}, currentGridTitle()};
    for (const lesson::ExportItem& item : items)
        content.ranges.push_back(item.range); // one each when each map has its own
    writeBytes(path, render::renderFigure(content, imageFormatOf(), figure));
}

std::vector<std::string> ExportMenu::exportEverything(
    const QString& folder, const render::ExportFormat& format, const render::FigureOptions& figure,
    bool overwrite, const render::ExportProgress& progress, const lesson::ScaleChoice& scale) const
{
    const ViewState state = m_state();
    lesson::ExportSelection all;
    all.steps.clear();
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        all.steps.push_back(info.step);
    render::ExportJob job;
    job.items = state.run
        ? lesson::planModelExport(state.run, all, scale)
        : lesson::planWalkthroughExport(state.walkthrough, all, "", "playground · ", scale);
    job.figure = figure;
    return render::writeExport(format, job, folder.toStdString(), overwrite, progress);
}

void ExportMenu::exportTrace(const QString& base) const
{
    const ViewState state = m_state();
    const std::string path = base.toStdString() + ".safetensors";
    try {
        if (state.run)
            lesson::writeModelTrace(path, *state.run, true);
        else if (state.walkthrough)
            lesson::writeWalkthroughTrace(path, *state.walkthrough, true);
        else
            throw ExportError(tr("Nothing has been computed yet.").toStdString());
    } catch (const io::FileError& e) {
        throw ExportError(e.what());
    }
}

void ExportMenu::exportHandout(const QString& path) const
{
    const ViewState state = m_state();
    if (!state.walkthrough)
        throw ExportError(tr("Nothing has been computed yet.").toStdString());
    writeBytes(path, render::renderHandout(state.walkthrough, shownTitle(*state.walkthrough)));
}

void ExportMenu::exportWebPage(const QString& path) const
{
    const ViewState state = m_state();
    if (!state.walkthrough)
        throw ExportError(tr("Nothing has been computed yet.").toStdString());
    render::ExportJob job;
    const lesson::ExportSelection weights; // every layer, block and head; the weights step
    job.items = state.run ? lesson::planModelExport(state.run, weights)
                          : lesson::planWalkthroughExport(state.walkthrough, weights, "", "");
    job.run = state.run;
    job.walkthroughs.emplace_back("lesson", state.walkthrough);
    if (!state.run)
        job.pageTitle = shownTitle(*state.walkthrough).toStdString();
    writeBytes(path, render::webPageBytes(job));
}

void ExportMenu::copyToClipboard() const
{
    if (const auto overview = overviewFigure()) {
        QApplication::clipboard()->setImage(render::rasterFigure(overview->content, {}));
        return;
    }
    const auto items = requireStepItems();
    QApplication::clipboard()->setImage(
        render::rasterImage(heatmapsOf(items), items.front().range, currentGridTitle(), {}));
}

void ExportMenu::askAndExportImage(bool grid)
{
    ExportDialog dialog(m_window, {render::ExportKind::Image});
    if (dialog.exec() != QDialog::Accepted)
        return;
    const render::ExportFormat& format = dialog.format();
    const QString ext =
        QString::fromLatin1(format.name.data(), static_cast<qsizetype>(format.name.size()));
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export image"), QStringLiteral("attention.%1").arg(ext),
        QString::fromLatin1(format.dialogFilter.data(),
                            static_cast<qsizetype>(format.dialogFilter.size())));
    if (path.isEmpty())
        return;
    const render::FigureOptions figure = dialog.figure();
    grid ? exportCurrentGrid(path, figure, dialog.scale())
         : exportCurrentHeatmap(path, figure, dialog.scale());
    emit saved(tr("Saved %1").arg(shownPath(path)));
}

void ExportMenu::askAndExportData()
{
    QStringList filters;
    for (const render::ExportFormat& f : render::exportFormats())
        if (f.kind == render::ExportKind::Matrix)
            filters << QString::fromLatin1(f.dialogFilter.data(),
                                           static_cast<qsizetype>(f.dialogFilter.size()));
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export the matrix"),
                                                      QStringLiteral("attention.csv"),
                                                      filters.join(QStringLiteral(";;")));
    if (path.isEmpty())
        return;
    exportCurrentHeatmap(path, {});
    emit saved(tr("Saved %1").arg(shownPath(path)));
}

void ExportMenu::askAndExportEverything()
{
    ExportDialog dialog(m_window, {render::ExportKind::Image, render::ExportKind::Matrix});
    dialog.setWindowTitle(tr("Export every layer × head × step"));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString folder = QFileDialog::getExistingDirectory(m_window, tr("Export into folder"));
    if (folder.isEmpty())
        return;
    QProgressDialog progress(tr("Exporting…"), QString(), 0, 1, m_window);
    progress.setWindowModality(Qt::WindowModal);
    const std::vector<std::string> written = exportEverything(
        folder, dialog.format(), dialog.figure(), false,
        [&](int done, int total) {
            progress.setMaximum(total);
            progress.setValue(done);
        },
        dialog.scale());
    emit saved(tr("Saved %n file(s) into %1", nullptr, static_cast<int>(written.size()))
                   .arg(shownPath(folder)));
}

} // namespace attnviz::app
