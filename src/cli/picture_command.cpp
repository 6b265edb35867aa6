#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/headless_painting.h"
#include "cli/model_loading.h"
#include "engine/thread_count.h"
#include "io/atomic_file.h"
#include "io/file_error.h"
#include "lesson/picture_attention.h"
#include "render/colour_map.h"
#include "render/export_formats.h"
#include "render/image_export.h"
#include "render/picture_overlay.h"

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace attnviz::cli {
namespace {

CommandSpec pictureSpec()
{
    return {
        "picture",
        "Usage: attnviz-cli picture --model DIR --image FILE [--layer L] [--head H|mean]\n"
        "                           [--from TOKEN] [--rollout] [--opacity X] [--colour-map NAME]\n"
        "                           [--width PX] [--height PX] [--dpi N] --out FILE\n"
        "                           [--threads N] [--max-memory S] [--quiet]",
        "A Vision Transformer's attention drawn over its picture, as the app's Experiments >\n"
        "Attention on the picture draws it: the row of one token (cls, dist, or a patch\n"
        "\"row,column\") from one layer's weights (one head, or the mean of the heads) or from\n"
        "the rollout of every layer, each patch tinted by its weight over the picture as the\n"
        "model reads it (resized and cropped as preprocessor_config.json says). Writes PNG, SVG\n"
        "or PDF by the file's extension, atomically.",
        {
            {"--model", "DIR", "a Vision Transformer's folder, or a bundled model's name"},
            {"--image", "FILE", "the picture (PNG or JPEG)"},
            {"--layer", "L", "the layer, from 0 (default: the last)"},
            {"--head", "H", "a head, from 0, or mean (the default): the mean of the heads"},
            {"--from", "TOKEN", "cls (the default), dist (DeiT), or a patch as row,column"},
            {"--rollout", "", "the rollout of every layer (heads fused by their mean) instead"},
            {"--opacity", "X", "of the tint, 0 (the picture alone) to 1 (default 0.6)"},
            {"--colour-map,--cmap", "NAME", "a sequential colour map: " + render::colourMapList()},
            {"--width", "PX", "image width in pixels (default 1200)"},
            {"--height", "PX", "image height in pixels (default 1040)"},
            {"--dpi", "N", "resolution: text and lines scale with it (default 192)"},
            {"--out", "FILE", "where to write the figure (.png, .svg or .pdf)"},
            threadsOption(),
            maxMemoryOption(),
            {"--quiet", "", "print nothing on success"},
        },
        "Exit status: 0 on success; 1 when the file cannot be written; 2 on bad arguments, a "
        "model\n"
        "that reads text, or a picture that cannot be read, with one sentence on stderr. Nothing\n"
        "is written on failure.",
    };
}

// --from as a token index of the picture: cls, dist, or "row,column".
int fromToken(const std::string& text, const engine::ImageInput& image)
{
    if (text == "cls")
        return 0;
    if (text == "dist" && image.distillationToken)
        return 1;
    const auto comma = text.find(',');
    int row = -1, column = -1;
    if (comma != std::string::npos) {
        const char* first = text.data();
        const char* last = first + text.size();
        const auto r = std::from_chars(first, first + comma, row);
        const auto c = std::from_chars(first + comma + 1, last, column);
        if (r.ec != std::errc() || r.ptr != first + comma || c.ec != std::errc() || c.ptr != last)
            row = column = -1;
    }
    if (row < 0 || column < 0 || row >= image.patchRows() || column >= image.patchColumns())
        throw UsageError("--from is '" + io::printable(text, 40) + "'; expected cls" +
                         (image.distillationToken ? ", dist" : "") +
                         " or a patch row,column with row 0 to " +
                         std::to_string(image.patchRows() - 1) + " and column 0 to " +
                         std::to_string(image.patchColumns() - 1));
    return image.extraTokens() + row * image.patchColumns() + column;
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = pictureSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (!parsed.positional.empty())
        throw UsageError("unexpected argument '" + io::printable(parsed.positional.front(), 60) +
                         "'");
    const std::string modelName = parsed.required("--model", "picture");
    const std::string image = parsed.required("--image", "picture");
    const std::string out = parsed.required("--out", "picture");
    const std::optional<render::ImageFormat> format =
        render::imageFormatOfExtension(std::filesystem::path(out).extension().string());
    if (!format)
        throw UsageError("--out " + io::printable(out, 60) +
                         " has no .png, .svg or .pdf extension");
    render::PictureOverlay overlay;
    if (const auto opacity = parsed.number("--opacity")) {
        if (!(*opacity >= 0 && *opacity <= 1))
            throw UsageError("--opacity is " + *parsed.value("--opacity") + "; expected 0 to 1");
        overlay.opacity = *opacity;
    }
    if (const auto name = parsed.value("--colour-map")) {
        const render::ColourMap* map = render::colourMap(*name);
        if (!map || map->diverging)
            throw UsageError("--colour-map is '" + io::printable(*name, 40) +
                             "'; expected a sequential map: viridis, magma, cividis or greys");
        overlay.colourMap = map;
    }
    render::FigureOptions figure;
    figure.size = {parsed.integer("--width", 1200, 50, render::kMaxImageSide),
                   parsed.integer("--height", 1040, 50, render::kMaxImageSide),
                   parsed.integer("--dpi", 192, 24, 2400)};
    if (figure.size.width * 96 / figure.size.dpi < 200 ||
        figure.size.height * 96 / figure.size.dpi < 200)
        throw UsageError(
            "the image is too small for its resolution; allow at least 200 pixels at 96 dpi");
    const int threads = parsed.integer("--threads", 0, 1, engine::kMaxThreads);
    const std::optional<std::uint64_t> memory = maxMemory(parsed);
    // Before the model runs: a figure that cannot be drawn is refused at once.
    if (*format == render::ImageFormat::Png)
        render::checkPngMemory(figure, memory);

    engine::setThreadCount(threads);
    const auto model = loadModelArgument(modelName, memory);
    const engine::ModelConfig& c = model->model->config();
    if (!c.image)
        throw UsageError(io::printable(c.name, 60) +
                         " reads text; picture needs a Vision Transformer");
    lesson::PictureQuery query;
    query.source =
        parsed.has("--rollout") ? lesson::PictureSource::Rollout : lesson::PictureSource::Weights;
    query.layer = parsed.integer("--layer", c.encoderLayers - 1, 0, c.encoderLayers - 1);
    const std::string head = parsed.value("--head").value_or("mean");
    query.head = head == "mean" ? -1 : parsed.integer("--head", -1, 0, c.numHeads - 1);
    query.token = fromToken(parsed.value("--from").value_or("cls"), *c.image);
    if (query.source == lesson::PictureSource::Rollout &&
        (parsed.value("--layer") || parsed.value("--head")))
        throw UsageError(
            "--rollout reads every layer and head; give it without --layer and --head");

    lesson::RunRequest request;
    request.image = image;
    request.maxMemory = memory;
    const lesson::ModelRun run =
        runModelArguments(model, request, engine::CapturePolicy::attentionWeights());
    overlay.attention = lesson::pictureAttention(*run.trace, c, query);
    overlay.title = QString::fromStdString(overlay.attention.title);
    overlay.queryPatch =
        query.token >= c.image->extraTokens() ? query.token - c.image->extraTokens() : -1;
    overlay.firstTokensNote =
        QStringLiteral("%1 % of the row is on %2, outside the picture")
            .arg(100 * overlay.attention.onFirstTokens, 0, 'f', 1)
            .arg(c.image->distillationToken ? QStringLiteral("[CLS] and [DIST]")
                                            : QStringLiteral("[CLS]"));

    const HeadlessPainting qt("picture");
    overlay.picture = render::pictureImage(*run.picture);
    figure.colouring.sequential = overlay.colourMap;
    figure.description = overlay.firstTokensNote;
    const QByteArray bytes = render::renderPictureOverlay(overlay, *format, figure);
    try {
        io::writeFileAtomically(
            out, std::span<const char>(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const io::FileError& e) {
        throw WriteFailed(e.what());
    }
    if (!parsed.has("--quiet"))
        std::printf("%s of %s over %s (%.1f %% on the first tokens) written to %s\n",
                    overlay.attention.title.c_str(), io::printable(c.name).c_str(),
                    io::printable(image).c_str(), 100 * overlay.attention.onFirstTokens,
                    io::printable(out).c_str());
    return kExitOk;
}

} // namespace

int runPictureCommand(const std::vector<std::string>& args)
{
    return runGuarded("picture", [&] { return run(args); });
}

} // namespace attnviz::cli
