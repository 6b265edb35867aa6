#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/model_loading.h"
#include "cli/progress_bar.h"
#include "engine/thread_count.h"
#include "io/file_error.h"
#include "lesson/head_importance.h"

#include <cmath>
#include <cstdio>

namespace attnviz::cli {
namespace {

CommandSpec importanceSpec()
{
    return {
        "importance",
        "Usage: attnviz-cli importance --model DIR [--text \"...\"] [--examples N] [--top N]\n"
        "                              [--threads N] [--max-memory S] [--quiet]",
        "Switches every attention head of the model off in turn (its columns of concat are zero, "
        "as with\n"
        "trace --ablate) and ranks the heads by how much worse the model does without each: D2L "
        "10.3's\n"
        "head-importance exercise. The data is the model folder's heldout.txt "
        "(docs/model-format.md), or\n"
        "--text. The score is\n"
        "  exact-match accuracy  an encoder-decoder with answers in heldout.txt "
        "(input<TAB>answer):\n"
        "                        every answer token and the end predicted, as greedy decoding "
        "would\n"
        "  loss                  decoders otherwise: mean cross-entropy of each next token, in "
        "nats\n"
        "                        (an encoder-decoder's own greedy output is the answer to a "
        "--text)\n"
        "  output change         encoder-only models: |h_off - h| / |h| of the encoder's output\n"
        "Prints the score with every head on, then one row per head, the most harmful switch-off "
        "first,\n"
        "then the change per layer × head for each kind of attention block.",
        {
            {"--model", "DIR", "a model folder or a bundled model's name"},
            {"--text", "T", "measure on this text instead of the folder's heldout.txt", false,
             true},
            {"--examples", "N", "use only the first N examples of heldout.txt"},
            {"--top", "N", "print only the N most important heads (the grid shows all)"},
            threadsOption(),
            maxMemoryOption(),
            {"--quiet", "", "no progress bar on stderr"},
        },
        "Exit status: 0 on success; 2 on bad arguments, a model that cannot be loaded or data it "
        "cannot\n"
        "read, with one sentence on stderr.",
    };
}

// A change below the printed precision prints as 0, not as "-0.0000".
double shown(double x)
{
    return std::abs(x) < 5e-5 ? 0.0 : x;
}

void printReport(const engine::ModelConfig& c, const lesson::ImportanceReport& r, int top)
{
    const std::string metric = lesson::metricName(r.metric);
    std::printf("%s: %s, %d layer(s), %d heads; %s on %s\n", io::printable(c.name).c_str(),
                engine::architectureName(c.architecture), c.layerCount(), c.numHeads,
                metric.c_str(), io::printable(r.data).c_str());
    std::printf("every head on: %.4f\n\n", r.baseline);
    std::printf("%4s  %5s  %-11s  %4s  %12s  %10s\n", "rank", "layer", "block", "head", "score",
                "harm");
    const std::vector<std::size_t> order = r.ranking();
    for (std::size_t i = 0; i < order.size() && static_cast<int>(i) < top; ++i) {
        const lesson::HeadImportance& h = r.heads[order[i]];
        std::printf("%4zu  %5d  %-11s  %4d  %12.4f  %+10.4f\n", i + 1, h.head.layer,
                    engine::blockName(h.head.block), h.head.head, h.value, shown(h.harm));
    }
    // The same numbers as a layers × heads grid per block, the shape the app draws.
    for (const engine::Block block : engine::kAttentionBlocks) {
        bool any = false;
        for (const lesson::HeadImportance& h : r.heads)
            any = any || h.head.block == block;
        if (!any)
            continue;
        std::printf("\nharm by layer × head, %s:\n%8s", engine::blockName(block), "");
        for (int head = 0; head < c.numHeads; ++head)
            std::printf(" %9s", ("head " + std::to_string(head)).c_str());
        int layer = -1;
        for (const lesson::HeadImportance& h : r.heads) {
            if (h.head.block != block)
                continue;
            if (h.head.layer != layer) {
                layer = h.head.layer;
                std::printf("\nlayer %-2d", layer);
            }
            std::printf(" %+9.4f", shown(h.harm));
        }
        std::printf("\n");
    }
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = importanceSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (!parsed.positional.empty())
        throw UsageError("unexpected argument '" + io::printable(parsed.positional.front(), 60) +
                         "'; give the text with --text");
    const std::string modelName = parsed.required("--model", "importance");
    const std::optional<std::string> text = parsed.value("--text");
    const int examples = parsed.integer("--examples", 0, 1, 1 << 24);
    const int top = parsed.integer("--top", 1 << 30, 1, 1 << 30);
    const int threads = parsed.integer("--threads", 0, 1, engine::kMaxThreads);
    const std::optional<std::uint64_t> memory = maxMemory(parsed);
    if (text && examples)
        throw UsageError("--examples applies to heldout.txt, not to --text");

    engine::setThreadCount(threads);
    const auto model = loadModelArgument(modelName, memory);
    lesson::EvaluationSet data;
    if (text) {
        data.inputs = {*text};
        data.description = "the text given";
    } else {
        std::optional<lesson::EvaluationSet> heldOut;
        try {
            heldOut = lesson::readEvaluationSet(model->folder);
        } catch (const std::exception& e) {
            throw std::invalid_argument(io::printable(modelName) + ": " + e.what());
        }
        if (!heldOut)
            throw UsageError(
                io::printable(modelName) +
                " has no heldout.txt to measure the heads on; give a text with --text");
        data = examples
            ? lesson::firstExamples(std::move(*heldOut), static_cast<std::size_t>(examples))
            : std::move(*heldOut);
    }
    const bool bar = !parsed.has("--quiet") && stderrIsTerminal();
    bool drawing = false;
    lesson::ImportanceReport report;
    try {
        report = lesson::headImportance(
            *model, data,
            [&](int done, int total) {
                if (!bar || (done % 16 != 0 && done != total))
                    return;
                drawing = done < total;
                showProgress("measuring", done, total);
            },
            memory);
    } catch (...) {
        if (drawing)
            std::fprintf(stderr, "\n"); // the sentence starts a line of its own
        throw;
    }
    printReport(model->model->config(), report, top);
    return kExitOk;
}

} // namespace

int runImportanceCommand(const std::vector<std::string>& args)
{
    return runGuarded("importance", [&] { return run(args); });
}

} // namespace attnviz::cli
