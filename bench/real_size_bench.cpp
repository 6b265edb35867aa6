// AttnViz at real size (issue #10): a GPT-2-small-shaped model (12 layers, 12 heads, d_model 768,
// d_ff 3072, vocabulary 50257, 1024 learned positions, gelu_tanh, pre-norm with a final
// LayerNorm, tied output) on 1024 token ids.
//
//   real_size_bench [--model=DIR] [--tokens=N] [benchmark options]   time the passes below
//   real_size_bench [--model=DIR] [--tokens=N] --memory=SCENARIO     one scenario, then its RSS
//   real_size_bench [--model=DIR] [--tokens=N] --check               numbers for a cross-check
//
// Without --model the weights are random (seeded, std 0.02); with it, any folder loadModel opens
// (tools/compare_real_size_with_torch.py writes a Hugging Face GPT-2 folder and runs torch on the
// same weights and ids in the same run). The ids are (t · 7919 + 13) mod vocabulary.
//
// Benchmarks (2 threads, as the torch comparison; 1 thread too for the main one):
//   BM_AttentionMaps           ids -> all attention maps: CapturePolicy::attentionWeights(), as
//                              "run this text" picks for a long input (last position's logits)
//   BM_AttentionMapsFullLayer  the same keeping layer 5 in full: attentionWeights(5)
//   BM_RecomputeLayer          one layer in full from the kept trace (opening it in the step panel)
//   BM_ObservedEveryLayer      a forward pass computing every layer in full for an observer, as
//                              `trace --dump` does when an observer sees every tensor
// Memory scenarios print VmRSS after each phase and VmHWM (peak) at the end; run each in a
// process of its own (e.g. under /usr/bin/time -v):
//   open             open the model
//   maps             open, forward keeping the attention maps
//   maps+recompute   ... then recomputeLayer(5) held beside the trace (the app's path)
//   maps+full        open, forward with attentionWeights(5)
#include "engine/thread_count.h"
#include "io/checkpoint/model_folder.h"
#include "random_model.h"

#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

using namespace attnviz;

constexpr int kOpenLayer = 5; // the layer opened in full; any layer costs the same

struct Setup {
    std::string folder; // empty: random weights
    int tokens = 1024;
};

Setup& setup()
{
    static Setup s;
    return s;
}

engine::ModelConfig gpt2SmallConfig()
{
    engine::ModelConfig c;
    c.name = "gpt2-small-random";
    c.architecture = engine::Architecture::DecoderOnly;
    c.vocabSize = 50257;
    c.modelWidth = 768;
    c.numHeads = 12;
    c.feedForwardWidth = 3072;
    c.decoderLayers = 12;
    c.activation = engine::Activation::GeluTanh;
    c.norm = engine::NormPosition::Pre;
    c.finalNorm = true;
    c.positional = engine::PositionalKind::Learned;
    c.maxLength = 1024;
    c.tiedOutput = true;
    c.layerNormEps = 1e-5f;
    c.bias = true;
    return c;
}

std::shared_ptr<const engine::TransformerModel> openModel()
{
    if (setup().folder.empty())
        return bench::randomModel(gpt2SmallConfig(), 10, 0.02f);
    return io::loadModel(setup().folder).model;
}

// Opened once for all benchmarks of a process.
const engine::TransformerModel& model()
{
    static const auto m = openModel();
    return *m;
}

engine::ModelInput input(const engine::TransformerModel& m)
{
    engine::ModelInput in;
    const int n = std::min(setup().tokens, m.config().maxLength);
    for (int t = 0; t < n; ++t)
        in.target.push_back(
            static_cast<int>((static_cast<std::int64_t>(t) * 7919 + 13) % m.config().vocabSize));
    return in;
}

double mapsMegabytes(const engine::ModelTrace& trace)
{
    std::int64_t floats = 0;
    for (const engine::LayerTrace& layer : trace.decoder->layers)
        for (const engine::AttentionBlockTrace& a : layer.attention)
            floats += a.attention.weights.size();
    return static_cast<double>(floats) * 4 / 1e6;
}

void BM_AttentionMaps(benchmark::State& state)
{
    const engine::TransformerModel& m = model();
    const engine::ModelInput in = input(m);
    engine::setThreadCount(static_cast<int>(state.range(0)));
    const engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    double mb = 0;
    for (auto _ : state) {
        const engine::ModelTrace trace = m.forward(in, policy);
        benchmark::DoNotOptimize(trace.logits.data());
        mb = mapsMegabytes(trace);
    }
    state.counters["maps_MB"] = mb;
    state.counters["tokens"] = static_cast<double>(in.target.size());
    engine::setThreadCount(0);
}

void BM_AttentionMapsFullLayer(benchmark::State& state)
{
    const engine::TransformerModel& m = model();
    const engine::ModelInput in = input(m);
    engine::setThreadCount(static_cast<int>(state.range(0)));
    const engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights(kOpenLayer);
    for (auto _ : state) {
        const engine::ModelTrace trace = m.forward(in, policy);
        benchmark::DoNotOptimize(trace.logits.data());
    }
    engine::setThreadCount(0);
}

void BM_RecomputeLayer(benchmark::State& state)
{
    const engine::TransformerModel& m = model();
    engine::setThreadCount(static_cast<int>(state.range(0)));
    const engine::ModelTrace trace = m.forward(input(m), engine::CapturePolicy::attentionWeights());
    for (auto _ : state) {
        const engine::LayerTrace layer =
            m.recomputeLayer(trace, engine::Block::MaskedSelf, kOpenLayer);
        benchmark::DoNotOptimize(layer.feedForward.residual.data());
    }
    engine::setThreadCount(0);
}

void BM_ObservedEveryLayer(benchmark::State& state)
{
    const engine::TransformerModel& m = model();
    const engine::ModelInput in = input(m);
    engine::setThreadCount(static_cast<int>(state.range(0)));
    engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    policy.attention = engine::AttentionKeep();
    policy.observer = [](const std::string&, const engine::Tensor& t) {
        benchmark::DoNotOptimize(t.data());
    };
    for (auto _ : state) {
        const engine::ModelTrace trace = m.forward(in, policy);
        benchmark::DoNotOptimize(trace.logits.data());
    }
    engine::setThreadCount(0);
}

BENCHMARK(BM_AttentionMaps)
    ->ArgName("threads")
    ->Arg(2)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AttentionMapsFullLayer)
    ->ArgName("threads")
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_RecomputeLayer)
    ->ArgName("threads")
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ObservedEveryLayer)
    ->ArgName("threads")
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// VmRSS or VmHWM of this process in MiB, from /proc/self/status.
double statusMegabytes(const char* field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.starts_with(field))
            return std::stod(line.substr(std::strlen(field) + 1)) / 1024;
    return 0;
}

double mallocInUse()
{
    const struct mallinfo2 heap = mallinfo2();
    return static_cast<double>(heap.uordblks + heap.hblkhd) / 1048576;
}

// Everything a trace holds: its tensors, the layers' inputs and the stack's output.
double keptMebibytes(const engine::ModelTrace& trace)
{
    std::int64_t floats = trace.decoder->output.size();
    trace.forEachTensor([&](const std::string&, const engine::Tensor& t) { floats += t.size(); });
    for (const engine::LayerTrace& layer : trace.decoder->layers)
        floats += layer.input.size();
    return static_cast<double>(floats) * 4 / 1048576;
}

int runMemoryScenario(const std::string& scenario)
{
    const bool maps = scenario.starts_with("maps");
    if (scenario != "open" && scenario != "maps" && scenario != "maps+recompute" &&
        scenario != "maps+full") {
        std::fprintf(stderr, "--memory is '%s'; expected open, maps, maps+recompute or maps+full\n",
                     scenario.c_str());
        return 2;
    }
    engine::setThreadCount(2);
    const auto m = openModel();
    std::printf("open %.0f (malloc: %.0f in use)", statusMegabytes("VmRSS:"), mallocInUse());
    engine::ModelTrace trace;
    engine::LayerTrace layer;
    if (maps) {
        trace =
            m->forward(input(*m),
                       scenario == "maps+full" ? engine::CapturePolicy::attentionWeights(kOpenLayer)
                                               : engine::CapturePolicy::attentionWeights());
        std::printf(", maps %.0f (%.0f MB of maps, %.0f MiB kept in all)",
                    statusMegabytes("VmRSS:"), mapsMegabytes(trace), keptMebibytes(trace));
    }
    if (scenario == "maps+recompute") {
        layer = m->recomputeLayer(trace, engine::Block::MaskedSelf, kOpenLayer);
        std::printf(", recomputed layer %.0f", statusMegabytes("VmRSS:"));
    }
    // What the allocator holds beside what is in use: freed memory it did not return.
    std::printf(", peak %.0f (malloc: %.0f in use, %.0f free but kept); MiB\n",
                statusMegabytes("VmHWM:"), mallocInUse(),
                static_cast<double>(mallinfo2().fordblks) / 1048576);
    return 0;
}

// The last position's logits, one row of the last layer's attention, and whether a recomputed
// layer's weights equal the kept ones, as JSON.
int printCheck()
{
    engine::setThreadCount(2);
    const engine::TransformerModel& m = model();
    const engine::ModelInput in = input(m);
    const engine::ModelTrace trace = m.forward(in, engine::CapturePolicy::attentionWeights());
    const int layer = m.config().decoderLayers - 1, head = m.config().numHeads / 2;
    const auto query = static_cast<std::int64_t>(in.target.size()) - 1;
    std::printf("{\"layer\": %d, \"head\": %d, \"query\": %lld, \"logits\": [", layer, head,
                static_cast<long long>(query));
    const auto logits = trace.logits.values();
    const std::size_t vocab = static_cast<std::size_t>(m.config().vocabSize);
    for (std::size_t i = logits.size() - vocab; i < logits.size(); ++i)
        std::printf("%s%.9g", i + vocab == logits.size() ? "" : ", ", logits[i]);
    std::printf("], \"weights_row\": [");
    const engine::Tensor& w =
        trace.decoder->layers[static_cast<std::size_t>(layer)].attention.front().attention.weights;
    const auto row = w.matrix({0, head}).row(query);
    for (Eigen::Index j = 0; j < row.size(); ++j)
        std::printf("%s%.9g", j ? ", " : "", row(j));
    // The weights a lean run kept and those of the same layer recomputed in full: the same bits.
    const engine::LayerTrace full = m.recomputeLayer(trace, engine::Block::MaskedSelf, kOpenLayer);
    const engine::Tensor& kept =
        trace.decoder->layers[kOpenLayer].attention.front().attention.weights;
    const engine::Tensor& recomputed = full.attention.front().attention.weights;
    const bool identical = kept.shape() == recomputed.shape() &&
        std::equal(kept.values().begin(), kept.values().end(), recomputed.values().begin());
    std::printf("], \"recomputed_weights_identical\": %s}\n", identical ? "true" : "false");
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    // Our own options first; the rest goes to Google Benchmark.
    std::vector<char*> rest{argv[0]};
    std::string memory;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.starts_with("--model="))
            setup().folder = a.substr(8);
        else if (a.starts_with("--tokens="))
            setup().tokens = std::stoi(a.substr(9));
        else if (a.starts_with("--memory="))
            memory = a.substr(9);
        else if (a == "--check")
            check = true;
        else
            rest.push_back(argv[i]);
    }
    try {
        if (!memory.empty())
            return runMemoryScenario(memory);
        if (check)
            return printCheck();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "real_size_bench: %s\n", e.what());
        return 2;
    }
    int restCount = static_cast<int>(rest.size());
    benchmark::Initialize(&restCount, rest.data());
    if (benchmark::ReportUnrecognizedArguments(restCount, rest.data()))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
