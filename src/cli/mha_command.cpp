#include "cli/mha_command.h"

#include "cli/exit_codes.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/thread_count.h"
#include "io/atomic_file.h"
#include "io/attention_case.h"
#include "io/trace_dump.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

namespace attnviz::cli {

const char* const kMhaUsage = R"(Usage: attnviz-cli mha CASE.safetensors [--dump OUT.safetensors] [--threads N] [--quiet]

Runs one multi-head attention module on the inputs and weights in CASE, prints every step with
its shape, and with --dump writes every intermediate to OUT as F32 tensors named q_proj, k_proj,
v_proj, q_heads, k_heads, v_heads, scores, scaled, masked, weights, context, concat and output.

CASE holds F32 tensors query [B,Nq,Dq], key [B,Nk,Dk], value [B,Nk,Dv], w_q [H*Pqk,Dq],
w_k [H*Pqk,Dk], w_v [H*Pv,Dv], w_o [Po,H*Pv]; optionally b_q, b_k, b_v, b_o, valid_lens
(I32/I64, [B] or [B,Nq]) and mask (U8/BOOL, [Nq,Nk] or [B,Nq,Nk], 1 = may attend). Its
__metadata__ gives num_heads (required) and causal ("true"/"false", default false).
See docs/case-format.md.

Options:
  --dump OUT     write the trace to OUT (atomically: never a partial file)
  --threads N    threads for the computation (default: all cores)
  --quiet        print nothing on success
  -h, --help     show this help

Exit status: 0 on success; 2 on bad arguments or bad input, with one sentence on stderr and no
OUT written; 1 when OUT could not be written.
)";

namespace {

struct MhaArguments {
    std::string casePath;
    std::optional<std::string> dumpPath;
    int threads = 0;
    bool quiet = false;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

MhaArguments parseArguments(const std::vector<std::string>& args)
{
    MhaArguments parsed;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto valueOf = [&](const char* option) {
            if (i + 1 >= args.size())
                throw UsageError(std::string(option) + " needs a value");
            return args[++i];
        };
        if (a == "--dump") {
            parsed.dumpPath = valueOf("--dump");
        } else if (a == "--threads") {
            const std::string v = valueOf("--threads");
            try {
                std::size_t used = 0;
                parsed.threads = std::stoi(v, &used);
                if (used != v.size() || parsed.threads < 1)
                    throw std::invalid_argument(v);
            } catch (const std::exception&) {
                throw UsageError("--threads is '" + v + "'; expected a positive integer");
            }
        } else if (a == "--quiet") {
            parsed.quiet = true;
        } else if (a.starts_with("-") && a != "-") {
            throw UsageError("unknown option '" + a + "'; see attnviz-cli mha --help");
        } else if (parsed.casePath.empty()) {
            parsed.casePath = a;
        } else {
            throw UsageError("unexpected argument '" + a + "'; mha takes one CASE file");
        }
    }
    if (parsed.casePath.empty())
        throw UsageError("mha needs a CASE.safetensors file; see attnviz-cli mha --help");
    return parsed;
}

void printSummary(const io::AttentionCase& c, const engine::MultiHeadAttention& mha,
                  const engine::AttentionTrace& trace, double milliseconds)
{
    std::printf("multi-head attention: batch=%lld, heads=%d, Nq=%lld, Nk=%lld, d_k=%lld, "
                "d_v=%lld, out=%lld%s\n",
                static_cast<long long>(c.query.dim(0)), mha.numHeads(),
                static_cast<long long>(c.query.dim(1)), static_cast<long long>(c.key.dim(1)),
                static_cast<long long>(mha.queryKeySize()),
                static_cast<long long>(mha.valueSize()),
                static_cast<long long>(mha.outputSize()), c.mask.causal ? ", causal" : "");
    for (const engine::AttentionStep step : engine::kAttentionSteps)
        std::printf("  %-8s %s\n", std::string(engine::stepName(step)).c_str(),
                    trace.step(step).shapeString().c_str());
    if (trace.fullyMaskedRows.empty()) {
        std::printf("fully masked query rows: none\n");
    } else {
        std::printf("fully masked query rows (zero weights):");
        for (const engine::MaskedRow& r : trace.fullyMaskedRows)
            std::printf(" (batch %lld, query %lld)", static_cast<long long>(r.batch),
                        static_cast<long long>(r.query));
        std::printf("\n");
    }
    std::printf("computed in %.2f ms\n", milliseconds);
}

} // namespace

int runMhaCommand(const std::vector<std::string>& args)
{
    for (const std::string& a : args) {
        if (a == "-h" || a == "--help") {
            std::cout << kMhaUsage;
            return kExitOk;
        }
    }
    MhaArguments parsed;
    try {
        parsed = parseArguments(args);
    } catch (const UsageError& e) {
        std::cerr << "attnviz-cli mha: " << e.what() << "\n";
        return kExitBadInput;
    }

    engine::AttentionTrace trace;
    std::optional<io::AttentionCase> attentionCase;
    std::optional<engine::MultiHeadAttention> mha;
    double milliseconds = 0;
    try {
        attentionCase = io::loadAttentionCase(io::SafetensorsFile::read(parsed.casePath));
        mha.emplace(attentionCase->weights, attentionCase->numHeads);
        engine::setThreadCount(parsed.threads);
        const auto start = std::chrono::steady_clock::now();
        mha->forward(attentionCase->query, attentionCase->key, attentionCase->value,
                     attentionCase->mask, trace);
        milliseconds = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    } catch (const io::FileError& e) {
        std::cerr << "attnviz-cli mha: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        // FormatError and InputError: the sentence names the tensor or field at fault.
        std::cerr << "attnviz-cli mha: " << parsed.casePath << ": " << e.what() << "\n";
        return kExitBadInput;
    }

    if (parsed.dumpPath) {
        try {
            io::SafetensorsWriter writer;
            writer.setMetadata("format", "attnviz-trace");
            writer.setMetadata("num_heads", std::to_string(mha->numHeads()));
            writer.setMetadata("causal", attentionCase->mask.causal ? "true" : "false");
            io::addAttentionTrace(writer, trace);
            writer.write(*parsed.dumpPath);
        } catch (const io::FileError& e) {
            std::cerr << "attnviz-cli mha: " << e.what() << "\n";
            return kExitWriteFailed;
        }
    }
    if (!parsed.quiet) {
        printSummary(*attentionCase, *mha, trace, milliseconds);
        if (parsed.dumpPath)
            std::printf("wrote %zu steps to %s\n", engine::kAttentionSteps.size(),
                        parsed.dumpPath->c_str());
    }
    return kExitOk;
}

} // namespace attnviz::cli
