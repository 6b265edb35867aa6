#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/figure_arguments.h"
#include "cli/headless_painting.h"
#include "cli/model_loading.h"
#include "cli/progress_bar.h"
#include "engine/input_error.h"
#include "io/file_set.h"
#include "lesson/imported_run.h"
#include "lesson/model_walkthrough.h"
#include "render/export_formats.h"
#include "render/image_export.h"

#include <cstdio>
#include <functional>

namespace attnviz::cli {
namespace {

std::string formatHelp()
{
    std::string out = "one of:";
    for (const render::ExportFormat& f : render::exportFormats())
        out += "\n  " + std::string(f.name) +
            std::string(12 - std::min<std::size_t>(f.name.size(), 11), ' ') + std::string(f.help);
    return out;
}

CommandSpec exportSpec()
{
    CommandSpec spec{
        "export",
        "Usage: attnviz-cli export (--model DIR --text \"...\" [--target \"...\"] [--generate N] | "
        "--case FILE\n"
        "                                 | --attentions FILE)\n"
        "                          [--layers LIST] [--blocks LIST] [--heads LIST] [--steps LIST]\n"
        "                          [--ablate HEADS] --format FORMAT --out DIR\n"
        "                          [--width PX] [--height PX] [--dpi N] [--max-memory S]\n"
        "                          [--overwrite] [--quiet]",
        "Writes attention heatmaps, the numbers behind them, whole traces or the printable "
        "walkthrough,\n"
        "without a display. One file per matrix, named\n"
        "  layer{L}_{block}_head{h}_{step}.{ext}    e.g. layer0_self_head3_weights.png   (models)\n"
        "  layer{L}_{block}_{step}.{ext}            steps with one matrix for all heads (q_proj, "
        "concat, ...)\n"
        "  head{h}_{step}.{ext}                     a --case file (batch{b}_ first when it has "
        "several items)\n"
        "Layers and heads count from 0. Every matrix of a step shares one colour range across the "
        "set.",
        {
            {"--model", "DIR",
             "a model folder or a bundled model's name, as for attnviz-cli trace"},
            {"--text", "T",
             "the input text, as for attnviz-cli trace; give it again for a batch of texts,\n"
             "whose files start text0_, text1_, …",
             true, true},
            {"--target", "T", "encoder-decoder only: the decoder's text, as for attnviz-cli trace",
             false, true},
            {"--image", "FILE", "a Vision Transformer's picture (PNG or JPEG) instead of --text"},
            {"--generate", "N", "decoder-only: continue the text greedily by N tokens first"},
            {"--case", "FILE", "an attnviz-cli mha case instead of a model"},
            {"--attentions", "FILE",
             "attention weights computed elsewhere (docs/attention-import.md): exported\n"
             "like a model's, layer by layer; they hold the weights step only"},
            {"--layers", "LIST", "e.g. 0,2 or 0-3 or all (default all)"},
            {"--blocks", "LIST", blockNames() + " (default all the model has)"},
            {"--heads", "LIST", "e.g. 3 or 0-1,5 (default all)"},
            {"--steps", "LIST", stepNames() + ",\ncomma-separated, or all (default weights)"},
            {"--ablate", "HEADS",
             "switch heads off before exporting: layer:head pairs for --model (1:0,1:3,\n"
             "1.cross:0, as for trace), head numbers for --case (0,2 or 1-3, as for mha).\n"
             "The switched-off heads' columns of concat are zero and everything after\n"
             "follows; titles and manifests say which heads were off"},
            {"--format", "F", formatHelp()},
            {"--bits", "N",
             "html: bits per stored value, 16 (default) or 8; the page states the precision"},
            {"--out", "DIR", "the folder to write into (created when missing)"},
            {"--width", "PX", "image width in pixels (default 900)"},
            {"--height", "PX", "image height in pixels (default 800)"},
            {"--dpi", "N", "resolution: text and lines scale with it (default 96)"},
            maxMemoryOption(),
            {"--overwrite", "",
             "replace existing files (otherwise an existing file stops the export before\n"
             "anything is written)"},
            {"--quiet", "", "no progress bar on stderr"},
        },
        "The files are written as one transaction: all of them, or — when anything fails — none. "
        "Exit\n"
        "status: 0 on success; 2 on bad arguments or input, with one sentence on stderr and "
        "nothing\n"
        "written; 1 when a file could not be written.",
    };
    const std::vector<OptionSpec> texts = textFileOptions();
    spec.options.insert(spec.options.begin() + 2, texts.begin(), texts.end());
    // The figure's options go after the size and before the switches that end the table.
    const std::vector<OptionSpec> figure = figureOptionSpecs();
    auto at = spec.options.end() - 2;
    spec.options.insert(at, figure.begin(), figure.end());
    return spec;
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = exportSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (!parsed.positional.empty())
        throw UsageError("unexpected argument '" + io::printable(parsed.positional.front(), 60) +
                         "'");
    const int sources = parsed.value("--model").has_value() + parsed.value("--case").has_value() +
        parsed.value("--attentions").has_value();
    if (sources != 1)
        throw UsageError("export needs one of --model with --text, --case or --attentions; see "
                         "attnviz-cli export --help");
    const bool hasText = !parsed.all("--text").empty() || !parsed.all("--text-file").empty();
    if (parsed.value("--image") && hasText)
        throw UsageError("give --text or --image, not both");
    if (parsed.value("--model") && !hasText && !parsed.value("--image"))
        throw UsageError("export --model needs --text or --text-file (or --image for a Vision "
                         "Transformer)");
    if (parsed.value("--case"))
        for (const char* option :
             {"--text", "--text-file", "--target", "--generate", "--layers", "--blocks", "--image"})
            if (parsed.value(option))
                throw UsageError(std::string(option) + " applies to --model, not to --case");
    if (parsed.value("--attentions"))
        for (const char* option :
             {"--text", "--text-file", "--target", "--generate", "--ablate", "--image"})
            if (parsed.value(option))
                throw UsageError(std::string(option) +
                                 " applies to --model, not to --attentions (the file holds its "
                                 "tokens)");
    const std::string formatName = parsed.required("--format", "export");
    const render::ExportFormat* format = render::exportFormat(formatName);
    if (!format)
        throw UsageError("--format is '" + io::printable(formatName, 40) + "'; expected " +
                         render::exportFormatList());
    const std::string out = parsed.required("--out", "export");
    render::ExportJob job;
    lesson::ExportSelection selection;
    selection.layers = indexList(parsed.value("--layers"), "--layers");
    selection.heads = indexList(parsed.value("--heads"), "--heads");
    selection.blocks = blockList(parsed.value("--blocks"));
    selection.steps = stepList(parsed.value("--steps"), {engine::AttentionStep::Weights});
    // A web page's head and model views show the weights; --steps chooses its walkthrough's
    // steps (all by default).
    const bool webPage = format->name == "html";
    if (parsed.value("--bits") && !webPage)
        throw UsageError("--bits applies to --format html");
    if (webPage) {
        if (parsed.value("--steps"))
            job.pageSteps = selection.steps;
        job.pageHeads = selection.heads;
        job.pageBits = parsed.integer("--bits", 16, 1, 64);
        if (job.pageBits != 8 && job.pageBits != 16)
            throw UsageError("--bits is " + std::to_string(job.pageBits) + "; expected 8 or 16");
        selection.steps = {engine::AttentionStep::Weights};
    }
    selectionArguments(parsed, selection);
    if (selection.overLayers != lesson::Combine::None && parsed.value("--case"))
        throw UsageError("--over-layers applies to --model and --attentions; a --case file has "
                         "one layer");
    render::ImageSize& size = job.figure.size;
    size.width = parsed.integer("--width", size.width, 50, render::kMaxImageSide);
    size.height = parsed.integer("--height", size.height, 50, render::kMaxImageSide);
    size.dpi = parsed.integer("--dpi", size.dpi, 24, 2400);
    if (size.width * 96 / size.dpi < 50 || size.height * 96 / size.dpi < 50)
        throw UsageError(
            "the image is too small for its resolution; allow at least 50 pixels at 96 dpi");
    if (const std::string why = io::whyNotAFolder(out); !why.empty())
        throw UsageError("--out " + io::printable(out) + " is " + why +
                         "; expected a folder to write into");

    const HeadlessPainting qt("export");
    const FigureArguments figure = figureArguments(parsed); // the fonts are known now
    const render::ImageSize chosen = size;
    job.figure = figure.figure;
    job.figure.size = chosen;
    job.arrangement = figure.arrangement;

    job.maxMemory = maxMemory(parsed);
    const std::vector<std::string> texts = textArguments(parsed);
    if (texts.size() > 1 &&
        (format->kind == render::ExportKind::Trace || format->kind == render::ExportKind::Document))
        throw UsageError("--format " + std::string(format->name) +
                         " takes one text at a time; this command has " +
                         std::to_string(texts.size()));
    // A batch's texts are run and written one at a time (render::writeExports), so that it holds
    // one text's run and maps, never all of them.
    std::function<render::ExportJob(std::size_t)> batchJob;
    if (parsed.value("--model") && texts.size() > 1) {
        // The model loads once, and each text's files start text{i}_.
        lesson::RunRequest request;
        request.target = parsed.value("--target");
        request.generate = parsed.integer("--generate", 0, 1, engine::ConfigLimits::kLength);
        request.maxMemory = job.maxMemory;
        const auto model = loadModelArgument(*parsed.value("--model"), request.maxMemory);
        if (const auto ablate = parsed.value("--ablate"))
            request.ablation = modelAblation(*ablate, model->model->config());
        batchJob = [&job, &texts, &selection, &figure, model, request](std::size_t i) mutable {
            render::ExportJob one = job;
            request.text = texts[i];
            const auto run =
                std::make_shared<const lesson::ModelRun>(runModelArguments(model, request));
            const std::string prefix = "text" + std::to_string(i) + "_";
            for (lesson::ExportItem& item : lesson::planModelExport(run, selection, figure.scale)) {
                item.baseName = prefix + item.baseName;
                item.place.filePrefix = prefix;
                item.heatmap.title = figure.title
                    ? *figure.title
                    : "text " + std::to_string(i) + " · " + item.heatmap.title;
                one.items.push_back(std::move(item));
            }
            return one;
        };
    } else if (parsed.value("--model") || parsed.value("--attentions")) {
        std::shared_ptr<const lesson::ModelRun> run;
        if (const auto modelName = parsed.value("--model")) {
            lesson::RunRequest request;
            if (const auto image = parsed.value("--image"))
                request.image = *image;
            else
                request.text = texts.front();
            request.target = parsed.value("--target");
            request.generate = parsed.integer("--generate", 0, 1, engine::ConfigLimits::kLength);
            request.maxMemory = maxMemory(parsed);
            const auto model = loadModelArgument(*modelName, request.maxMemory);
            if (const auto ablate = parsed.value("--ablate"))
                request.ablation = modelAblation(*ablate, model->model->config());
            run = std::make_shared<const lesson::ModelRun>(runModelArguments(model, request));
        } else {
            run = lesson::openImportedRun(*parsed.value("--attentions"), job.maxMemory);
        }
        job.items = lesson::planModelExport(run, selection, figure.scale);
        job.run = run;
        if (format->kind == render::ExportKind::Document)
            for (const auto& [L, b] : lesson::selectedBlocks(*run, selection)) {
                job.walkthroughs.emplace_back("layer" + std::to_string(L) + "_" +
                                                  engine::blockName(b) + "_handout",
                                              lesson::walkthroughForBlock(run, {L, b, -1}));
                if (webPage)
                    break; // a page walks through one block: the first selected
            }
    } else {
        const std::shared_ptr<const lesson::Walkthrough> w =
            runCaseArgument(*parsed.value("--case"), parsed.value("--ablate"), maxMemory(parsed));
        job.items = lesson::planWalkthroughExport(w, selection, "", "", figure.scale);
        job.walkthroughs.emplace_back("handout", w);
    }

    if (figure.title)
        for (lesson::ExportItem& item : job.items)
            item.heatmap.title = *figure.title;

    const bool quiet = parsed.has("--quiet");
    // The bar redraws one line in place: only a terminal shows that, and a log would get every
    // frame. A failure ends the line first, so the sentence stands on its own.
    const bool bar = !quiet && stderrIsTerminal() && format->kind != render::ExportKind::Trace &&
        (batchJob || job.items.size() >= 10);
    bool drawing = false;
    const auto progress = [&](int done, int total) {
        drawing = done < total;
        showProgress("exporting", done, total);
    };
    std::vector<std::string> written;
    try {
        const render::ExportProgress shown = bar ? render::ExportProgress(progress) : nullptr;
        written = batchJob
            ? render::writeExports(*format, texts.size(), batchJob, out, parsed.has("--overwrite"),
                                   shown)
            : render::writeExport(*format, job, out, parsed.has("--overwrite"), shown);
    } catch (const io::ExistingFileError&) {
        if (drawing)
            std::fprintf(stderr, "\n");
        throw; // a refusal before writing: bad input
    } catch (const io::FileError& e) {
        if (drawing)
            std::fprintf(stderr, "\n");
        throw WriteFailed(e.what());
    } catch (...) {
        if (drawing)
            std::fprintf(stderr, "\n");
        throw;
    }
    if (!quiet)
        std::printf("wrote %zu file(s) to %s\n", written.size(), io::printable(out).c_str());
    return kExitOk;
}

} // namespace

int runExportCommand(const std::vector<std::string>& args)
{
    return runGuarded("export", [&] { return run(args); });
}

} // namespace attnviz::cli
