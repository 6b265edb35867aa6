#include "cli/export_command.h"

#include "app/model_walkthrough.h"
#include "cli/arguments.h"
#include "cli/exit_codes.h"
#include "cli/model_arguments.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "export/export_writer.h"
#include "export/handout.h"
#include "export/trace_files.h"
#include "io/atomic_file.h"

#include <QApplication>
#include <QDir>

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace attnviz::cli {
namespace {

const char* const kExportUsage = R"(Usage: attnviz-cli export (--model DIR --text "..." [--target "..."] [--generate N] | --case FILE)
                          [--layers LIST] [--blocks LIST] [--heads LIST] [--steps LIST]
                          --format png|svg|pdf|csv|npy|safetensors|handout --out DIR
                          [--width PX] [--height PX] [--dpi N] [--overwrite] [--quiet]

Writes attention heatmaps, the numbers behind them, whole traces or the printable walkthrough,
without a display. One file per matrix, named
  layer{L}_{block}_head{h}_{step}.{ext}    e.g. layer0_self_head3_weights.png   (models)
  layer{L}_{block}_{step}.{ext}            steps with one matrix for all heads (q_proj, concat, ...)
  head{h}_{step}.{ext}                     a --case file (batch{b}_ first when it has several items)
Layers and heads count from 0. Every matrix of a step shares one colour range across the set.

  --model DIR, --text, --target, --generate    as for attnviz-cli trace
  --case FILE      an attnviz-cli mha case instead of a model
  --layers LIST    e.g. 0,2 or 0-3 or all (default all)
  --blocks LIST    self, masked_self, cross (default all the model has)
  --heads LIST     e.g. 3 or 0-1,5 (default all)
  --steps LIST     q_proj k_proj v_proj q_heads k_heads v_heads scores scaled masked weights
                   context concat output, comma-separated, or all (default weights)
  --format F       png, svg, pdf (images), csv (token labels in the first row and column),
                   npy (NumPy float32), safetensors (the whole trace as trace.safetensors plus a
                   trace.json manifest), handout (the ten-step walkthrough as a multi-page PDF,
                   one per selected layer and block)
  --out DIR        an existing folder
  --width, --height, --dpi    image size in pixels and resolution (default 900 × 800 at 96 dpi)
  --overwrite      replace existing files (otherwise an existing file stops the export before
                   anything is written)
  --quiet          no progress bar on stderr

Every file is written atomically. Exit status: 0 on success; 2 on bad arguments or input, with
one sentence on stderr and nothing written; 1 when a file could not be written.
)";

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> items;
    std::string current;
    for (const char c : text + ",") {
        if (c == ',') {
            if (!current.empty())
                items.push_back(current);
            current.clear();
        } else if (c != ' ') {
            current += c;
        }
    }
    return items;
}

std::vector<int> indexList(const std::optional<std::string>& text, const std::string& option)
{
    std::vector<int> out;
    if (!text || *text == "all")
        return out;
    const auto number = [&](const std::string& s) {
        std::size_t used = 0;
        int n = -1;
        try {
            n = std::stoi(s, &used);
        } catch (const std::exception&) {
        }
        if (n < 0 || used != s.size())
            throw UsageError(option + " has '" + s + "'; expected numbers from 0, ranges such as 0-3, or all");
        return n;
    };
    for (const std::string& item : splitList(*text)) {
        const auto dash = item.find('-');
        if (dash == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const int from = number(item.substr(0, dash)), to = number(item.substr(dash + 1));
        if (to < from)
            throw UsageError(option + " has the empty range '" + item + "'");
        for (int i = from; i <= to; ++i)
            out.push_back(i);
    }
    if (out.empty())
        throw UsageError(option + " is empty");
    return out;
}

std::vector<engine::Block> blockList(const std::optional<std::string>& text)
{
    std::vector<engine::Block> out;
    if (!text || *text == "all")
        return out;
    for (const std::string& item : splitList(*text)) {
        bool found = false;
        for (const engine::Block b : {engine::Block::Self, engine::Block::MaskedSelf, engine::Block::Cross})
            if (item == engine::blockName(b)) {
                out.push_back(b);
                found = true;
            }
        if (!found)
            throw UsageError("--blocks has '" + item + "'; expected self, masked_self or cross");
    }
    return out;
}

std::vector<engine::AttentionStep> stepList(const std::optional<std::string>& text)
{
    if (!text)
        return {engine::AttentionStep::Weights};
    if (*text == "all")
        return {engine::kAttentionSteps.begin(), engine::kAttentionSteps.end()};
    std::vector<engine::AttentionStep> out;
    for (const std::string& item : splitList(*text)) {
        bool found = false;
        for (const engine::AttentionStep s : engine::kAttentionSteps)
            if (item == engine::stepName(s)) {
                out.push_back(s);
                found = true;
            }
        if (!found)
            throw UsageError("--steps has '" + item + "'; expected q_proj, k_proj, v_proj, q_heads, k_heads, v_heads, "
                             "scores, scaled, masked, weights, context, concat, output or all");
    }
    return out;
}

// A progress bar on stderr, redrawn in place: "exporting [#########           ] 72/144".
void showProgress(int done, int total)
{
    constexpr int width = 30;
    const int filled = total ? done * width / total : width;
    std::fprintf(stderr, "\rexporting [%s%s] %d/%d", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), done, total);
    if (done == total)
        std::fprintf(stderr, "\n");
    std::fflush(stderr);
}

} // namespace

int runExportCommand(const std::vector<std::string>& args, char* program)
{
    if (wantsHelp(args)) {
        std::cout << kExportUsage;
        return kExitOk;
    }
    Arguments parsed;
    exporting::ExportSelection selection;
    exporting::ImageSize size;
    QString format, out;
    int generate = 0;
    try {
        parsed = parseArguments(args, "export",
                                {"--model", "--text", "--target", "--generate", "--case", "--layers", "--blocks", "--heads",
                                 "--steps", "--format", "--out", "--width", "--height", "--dpi"},
                                {"--overwrite", "--quiet"});
        if (!parsed.positional.empty())
            throw UsageError("unexpected argument '" + parsed.positional.front() + "'");
        if (parsed.value("--model").has_value() == parsed.value("--case").has_value())
            throw UsageError("export needs either --model with --text or --case; see attnviz-cli export --help");
        if (parsed.value("--model") && !parsed.value("--text"))
            throw UsageError("export --model needs --text");
        if (parsed.value("--case"))
            for (const char* option : {"--text", "--target", "--generate", "--layers", "--blocks"})
                if (parsed.value(option))
                    throw UsageError(std::string(option) + " applies to --model, not to --case");
        format = QString::fromStdString(parsed.required("--format", "export"));
        if (!exporting::exportFormatFromName(format) && format != QLatin1String("safetensors") && format != QLatin1String("handout"))
            throw UsageError("--format is '" + format.toStdString() + "'; expected png, svg, pdf, csv, npy, safetensors or handout");
        out = QString::fromStdString(parsed.required("--out", "export"));
        selection.layers = indexList(parsed.value("--layers"), "--layers");
        selection.heads = indexList(parsed.value("--heads"), "--heads");
        selection.blocks = blockList(parsed.value("--blocks"));
        selection.steps = stepList(parsed.value("--steps"));
        size.width = parsed.positiveInteger("--width", size.width);
        size.height = parsed.positiveInteger("--height", size.height);
        size.dpi = parsed.positiveInteger("--dpi", size.dpi);
        generate = parsed.positiveInteger("--generate", 0);
        if (size.width > 20000 || size.height > 20000 || size.dpi > 2400)
            throw UsageError("the image would be too large; --width and --height go up to 20000 pixels, --dpi up to 2400");
        if (size.width * 96 / size.dpi < 50 || size.height * 96 / size.dpi < 50)
            throw UsageError("the image is too small for its resolution; allow at least 50 pixels at 96 dpi");
        if (!QFileInfo(out).isDir())
            throw UsageError("the output folder " + out.toStdString() + " does not exist");
    } catch (const UsageError& e) {
        std::cerr << "attnviz-cli export: " << e.what() << "\n";
        return kExitBadInput;
    }

    // No display is needed: the views draw into images, never onto a screen. Qt's own chatter
    // (missing XDG_RUNTIME_DIR and the like) would break the one-sentence contract on stderr.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::fprintf(stderr, "attnviz-cli export: Qt: %s\n", message.toLocal8Bit().constData());
    });
    int qtArgc = 1;
    char* qtArgv[] = {program, nullptr};
    QApplication qt(qtArgc, qtArgv);

    const bool overwrite = parsed.has("--overwrite");
    const bool quiet = parsed.has("--quiet");
    std::vector<QString> written;
    try {
        std::vector<exporting::ExportItem> items;
        std::vector<std::pair<QString, std::shared_ptr<const app::Walkthrough>>> handouts;
        std::shared_ptr<const engine::TransformerModel> model;
        engine::ModelRun run;
        std::optional<io::AttentionCase> attentionCase;
        std::shared_ptr<const app::Walkthrough> caseWalkthrough;
        if (const auto modelName = parsed.value("--model")) {
            ModelOnText loaded = runModelOnArguments(*modelName, *parsed.value("--text"), parsed.value("--target"), generate);
            model = loaded.model;
            run = std::move(loaded.run);
            items = exporting::planModelExport(*model, run, selection);
            if (format == QLatin1String("handout"))
                for (const auto& [L, b] : exporting::selectedBlocks(*model, *run.trace, selection))
                    handouts.emplace_back(QStringLiteral("layer%1_%2_handout").arg(L).arg(QString::fromLatin1(engine::blockName(b))),
                                          app::walkthroughForBlock(*model, run, {L, b, -1}));
        } else {
            const std::string casePath = *parsed.value("--case");
            try {
                attentionCase = io::loadAttentionCase(io::SafetensorsFile::read(casePath));
            } catch (const std::exception& e) {
                throw engine::InputError(casePath + ": " + e.what());
            }
            const engine::MultiHeadAttention mha(attentionCase->weights, attentionCase->numHeads);
            caseWalkthrough = exporting::walkthroughForCase(*attentionCase, mha.forward(attentionCase->query, attentionCase->key,
                                                                                         attentionCase->value, attentionCase->mask));
            items = exporting::planWalkthroughExport(caseWalkthrough, selection, QString());
            handouts.emplace_back(QStringLiteral("handout"), caseWalkthrough);
        }

        const QDir dir(out);
        if (format == QLatin1String("safetensors")) {
            written = {dir.filePath(QStringLiteral("trace.safetensors")), dir.filePath(QStringLiteral("trace.json"))};
            exporting::refuseExisting(written, overwrite);
            const std::string base = dir.filePath(QStringLiteral("trace")).toStdString();
            try {
                if (model)
                    exporting::writeModelTrace(base, *model, *run.trace);
                else
                    exporting::writeAttentionTrace(base, caseWalkthrough->trace, caseWalkthrough->queryTokens,
                                                   caseWalkthrough->keyTokens,
                                                   "{\"num_heads\": " + std::to_string(attentionCase->numHeads) + ", \"causal\": " +
                                                       (attentionCase->mask.causal ? "true" : "false") + "}");
            } catch (const io::FileError& e) {
                throw exporting::ExportError(e.what());
            }
        } else if (format == QLatin1String("handout")) {
            for (const auto& [name, w] : handouts)
                written.push_back(dir.filePath(name + QStringLiteral(".pdf")));
            exporting::refuseExisting(written, overwrite);
            for (std::size_t i = 0; i < handouts.size(); ++i)
                exporting::writeBytes(written[i], exporting::renderHandout(handouts[i].second, handouts[i].first));
        } else {
            if (items.empty())
                throw engine::InputError("The selection holds no matrix to export.");
            const bool showBar = !quiet && items.size() >= 10;
            written = exporting::writeExport(items, *exporting::exportFormatFromName(format), size, out, overwrite,
                                             showBar ? std::function<void(int, int)>(showProgress) : nullptr);
        }
    } catch (const engine::InputError& e) {
        std::cerr << "attnviz-cli export: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const exporting::ExistingFileError& e) {
        std::cerr << "attnviz-cli export: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const exporting::ExportError& e) {
        std::cerr << "attnviz-cli export: " << e.what() << "\n";
        return kExitWriteFailed;
    }
    if (!quiet)
        std::printf("wrote %zu file(s) to %s\n", written.size(), out.toStdString().c_str());
    return kExitOk;
}

} // namespace attnviz::cli
