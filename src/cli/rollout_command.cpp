#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/model_loading.h"
#include "engine/thread_count.h"
#include "io/atomic_file.h"
#include "io/file_error.h"
#include "io/labelled_matrix.h"
#include "lesson/attention_rollout.h"
#include "lesson/model_walkthrough.h"

#include <cstdio>

namespace attnviz::cli {
namespace {

CommandSpec rolloutSpec()
{
    return {
        "rollout",
        "Usage: attnviz-cli rollout --model DIR (--text \"...\" | --image FILE) [--head-fusion F]\n"
        "                           [--discard-ratio R] --out FILE.npy [--threads N]\n"
        "                           [--max-memory S] [--quiet]",
        "Attention rollout (Abnar & Zuidema, 2020) of the model's first attention stack (the\n"
        "encoder's self-attention of an encoder-decoder; the only stack otherwise): per layer the\n"
        "heads fused into A, in each row the floor(R * N) smallest entries off the diagonal set to "
        "0,\n"
        "A~ = normalise_rows(0.5 * (A + I)) — every row sums to 1 — and the rollout A~_L ... "
        "A~_1.\n"
        "Row i says how much of what token i holds after the last layer came from each input "
        "token.\n"
        "Writes the N x N rollout as a float32 .npy (numpy.load reads it), atomically.",
        {
            {"--model", "DIR", "a model folder or a bundled model's name"},
            {"--text", "T", "the text to run the model on", false, true},
            {"--image", "FILE", "an image, for a Vision Transformer"},
            {"--head-fusion", "F",
             "mean (the default), max or min: how a layer's heads become one"},
            {"--discard-ratio", "R",
             "0 (the default) to 1: the share of each row's smallest entries dropped per layer"},
            {"--out", "FILE", "where to write the rollout (.npy)"},
            threadsOption(),
            maxMemoryOption(),
            {"--quiet", "", "print nothing on success"},
        },
        "Exit status: 0 on success; 1 when the file cannot be written; 2 on bad arguments or a "
        "model\n"
        "that cannot be loaded or run, with one sentence on stderr. Nothing is written on failure.",
    };
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = rolloutSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (!parsed.positional.empty())
        throw UsageError("unexpected argument '" + io::printable(parsed.positional.front(), 60) +
                         "'; give the text with --text");
    const std::string modelName = parsed.required("--model", "rollout");
    const std::string out = parsed.required("--out", "rollout");
    const std::optional<std::string> text = parsed.value("--text");
    const std::optional<std::string> image = parsed.value("--image");
    if (text && image)
        throw UsageError("give --text or --image, not both");
    if (!text && !image)
        throw UsageError("rollout needs --text (or --image for a Vision Transformer)");
    lesson::RolloutOptions options;
    if (const auto fusion = parsed.value("--head-fusion")) {
        const auto known = lesson::headFusionFromName(*fusion);
        if (!known)
            throw UsageError("--head-fusion is '" + io::printable(*fusion, 40) +
                             "'; expected mean, max or min");
        options.fusion = *known;
    }
    if (const auto ratio = parsed.number("--discard-ratio")) {
        if (*ratio < 0 || *ratio > 1)
            throw UsageError("--discard-ratio is " + *parsed.value("--discard-ratio") +
                             "; expected a number from 0 to 1");
        options.discardRatio = *ratio + 0.0; // −0 prints as 0
    }
    const int threads = parsed.integer("--threads", 0, 1, engine::kMaxThreads);
    const std::optional<std::uint64_t> memory = maxMemory(parsed);

    engine::setThreadCount(threads);
    const auto model = loadModelArgument(modelName, memory);
    lesson::RunRequest request;
    request.text = text.value_or("");
    request.image = image.value_or("");
    request.maxMemory = memory;
    const auto run = std::make_shared<const lesson::ModelRun>(
        runModelArguments(model, request, engine::CapturePolicy::attentionWeights()));
    const engine::Block block = lesson::firstAttentionStack(model->model->config());
    const std::vector<int>& ids = run->trace->queryIds(block);
    const lesson::Heatmap map =
        lesson::rolloutHeatmap(lesson::attentionRollout(*run->trace, block, options),
                               lesson::displayTokens(*run, ids), options);
    try {
        const std::string bytes = io::npyBytes(map.matrix);
        io::writeFileAtomically(out, bytes);
    } catch (const io::FileError& e) {
        throw WriteFailed(e.what());
    }
    if (!parsed.has("--quiet"))
        std::printf("rollout of %s's %s over %zu tokens (%d layers, %s of the heads, discard "
                    "ratio %g) written to %s\n",
                    io::printable(model->model->config().name).c_str(), engine::blockName(block),
                    ids.size(), static_cast<int>(run->trace->stackOf(block)->layers.size()),
                    std::string(lesson::headFusionName(options.fusion)).c_str(),
                    options.discardRatio, io::printable(out).c_str());
    return kExitOk;
}

} // namespace

int runRolloutCommand(const std::vector<std::string>& args)
{
    return runGuarded("rollout", [&] { return run(args); });
}

} // namespace attnviz::cli
