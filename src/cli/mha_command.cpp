#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/model_loading.h"
#include "engine/thread_count.h"
#include "io/file_error.h"
#include "lesson/parameter_count.h"
#include "lesson/trace_export.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace attnviz::cli {
namespace {

CommandSpec mhaSpec()
{
    return {
        "mha",
        "Usage: attnviz-cli mha CASE.safetensors [--dump OUT.safetensors] [--ablate HEADS]\n"
        "                      [--online-softmax TILE] [--threads N] [--max-memory S] [--quiet]",
        "Runs one multi-head attention module on the inputs and weights in CASE, prints every step "
        "with\n"
        "its shape, and with --dump writes every intermediate to OUT as F32 tensors named\n" +
            stepNames() +
            ".\n\n"
            "CASE holds F32 tensors query [B,Nq,Dq], key [B,Nk,Dk], value [B,Nk,Dv], w_q "
            "[H*Pqk,Dq],\n"
            "w_k [Hkv*Pqk,Dk], w_v [Hkv*Pv,Dv], w_o [Po,H*Pv]; optionally b_q, b_k, b_v, b_o, "
            "valid_lens\n"
            "(I32/I64, [B] or [B,Nq]), mask (U8/BOOL, [Nq,Nk] or [B,Nq,Nk], 1 = may attend) and, "
            "with\n"
            "rotary positions, query_positions [B,Nq] and key_positions [B,Nk] (I32/I64). Its "
            "__metadata__\n"
            "gives num_heads (required), num_kv_heads (default num_heads; grouped-query "
            "attention),\n"
            "causal (\"true\"/\"false\", default false), sliding_window (W keys, with causal) and "
            "rope_theta\n"
            "(rotary positions). See docs/case-format.md.",
        {
            {"--dump", "OUT", "write the trace to OUT (atomically: never a partial file)"},
            {"--ablate", "HEADS",
             "switch heads off (e.g. 0,2 or 1-3): their context is computed and kept, their\n"
             "columns of concat are zero, so output leaves them out; the manifest lists them"},
            {"--online-softmax", "TILE",
             "compute the softmax online as FlashAttention does, reading each query row's keys in\n"
             "tiles of TILE keys (at least 1); adds the steps online_max and online_sum\n"
             "[B,H,Nq,ceil(Nk/TILE)], the running maximum m and sum l after each tile; weights,\n"
             "context and output are the tiled pass's"},
            threadsOption(),
            maxMemoryOption(),
            {"--quiet", "", "print nothing on success"},
        },
        "Exit status: 0 on success; 2 on bad arguments or bad input, with one sentence on stderr "
        "and no\n"
        "OUT written; 1 when OUT could not be written.",
    };
}

void printSummary(const lesson::Walkthrough& w)
{
    const engine::AttentionTrace& t = *w.trace;
    const engine::AttentionDescription& d = w.description();
    std::string variant;
    if (d.groupedKeyValues())
        variant += ", kv_heads=" + std::to_string(d.keyValueHeads);
    if (d.rotary) {
        std::ostringstream theta;
        theta << d.rotary->theta;
        variant += ", rope_theta=" + theta.str();
    }
    if (w.mask.causal)
        variant += ", causal";
    if (w.mask.window)
        variant += ", sliding_window=" + std::to_string(*w.mask.window);
    if (d.onlineSoftmaxTile)
        variant += ", online softmax in " + std::to_string(t.tileCount()) + " tiles of " +
            std::to_string(*d.onlineSoftmaxTile) + " keys";
    std::printf("multi-head attention: batch=%lld, heads=%d, Nq=%lld, Nk=%lld, d_k=%d, d_v=%d, "
                "out=%lld%s\n",
                static_cast<long long>(t.batchSize()), w.heads(),
                static_cast<long long>(t.queryLength()), static_cast<long long>(t.keyLength()),
                w.dk(), w.dv(), static_cast<long long>(w.weights()->wO.rows()), variant.c_str());
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        if (t.computes(info.step))
            std::printf("  %-8s %s\n", std::string(info.name).c_str(),
                        t.step(info.step).shapeString().c_str());
    const std::vector<lesson::MatrixParameters> parameters =
        lesson::attentionParameters(*w.weights());
    std::printf("parameters:");
    for (const lesson::MatrixParameters& m : parameters)
        std::printf(" %s %lld×%lld%s%s", m.name.c_str(), static_cast<long long>(m.rows),
                    static_cast<long long>(m.cols),
                    m.biases ? (" + " + std::to_string(m.biases)).c_str() : "",
                    &m == &parameters.back() ? "" : ",");
    std::printf(" = %s (%s without biases)\n",
                lesson::groupedNumber(lesson::totalParameters(parameters)).c_str(),
                lesson::groupedNumber(lesson::totalWeights(parameters)).c_str());
    if (t.fullyMaskedRows.empty()) {
        std::printf("fully masked query rows: none\n");
    } else {
        std::printf("fully masked query rows (zero weights):");
        for (const engine::MaskedRow& r : t.fullyMaskedRows)
            std::printf(" (batch %lld, query %lld)", static_cast<long long>(r.batch),
                        static_cast<long long>(r.query));
        std::printf("\n");
    }
    if (!t.ablatedHeads.empty()) {
        std::printf("heads switched off (zero columns in concat):");
        for (const int h : t.ablatedHeads)
            std::printf(" %d", h);
        std::printf("\n");
    }
    std::printf("computed in %.2f ms\n", w.milliseconds);
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = mhaSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (parsed.positional.empty())
        throw UsageError("mha needs a CASE.safetensors file; see attnviz-cli mha --help");
    if (parsed.positional.size() > 1)
        throw UsageError("unexpected argument '" + io::printable(parsed.positional[1], 60) +
                         "'; mha takes one CASE file");
    const std::string casePath = parsed.positional.front();
    const int threads = parsed.integer("--threads", 0, 1, engine::kMaxThreads);
    const auto dump = parsed.value("--dump");
    const std::optional<std::uint64_t> memory = maxMemory(parsed);
    std::optional<std::int64_t> onlineTile;
    if (parsed.value("--online-softmax"))
        onlineTile = parsed.integer("--online-softmax", 0, 1,
                                    static_cast<int>(engine::kMaxOnlineSoftmaxTile));

    engine::setThreadCount(threads);
    const std::shared_ptr<const lesson::Walkthrough> w =
        runCaseArgument(casePath, parsed.value("--ablate"), memory, onlineTile);
    if (dump) {
        try {
            lesson::writeWalkthroughTrace(*dump, *w, false);
        } catch (const io::FileError& e) {
            throw WriteFailed(e.what());
        }
    }
    if (!parsed.has("--quiet")) {
        printSummary(*w);
        if (dump)
            std::printf("wrote %zu steps to %s\n", w->trace->computedSteps().size(),
                        io::printable(*dump).c_str());
    }
    return kExitOk;
}

} // namespace

int runMhaCommand(const std::vector<std::string>& args)
{
    return runGuarded("mha", [&] { return run(args); });
}

} // namespace attnviz::cli
