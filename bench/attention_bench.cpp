// Full-trace multi-head attention forward, self-attention at the sizes issue #2 names, at 1 and 2
// threads. tools/compare_speed_with_torch.py runs this and torch.nn.MultiheadAttention in the same
// run and prints the ratios (docs/performance.md).
#include "engine/multi_head_attention.h"
#include "engine/thread_count.h"

#include <benchmark/benchmark.h>

#include <random>

namespace {

using namespace attnviz::engine;

struct Problem {
    Tensor x;
    AttentionWeights weights;
};

Problem makeProblem(std::int64_t B, std::int64_t N, std::int64_t D)
{
    std::mt19937 random(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Problem p;
    p.x = Tensor({{"batch", B}, {"query", N}, {"feature", D}});
    for (float& v : p.x.values())
        v = normal(random);
    const auto matrix = [&](Eigen::Index rows, Eigen::Index cols) {
        RowMatrix m(rows, cols);
        for (float& v : m.reshaped())
            v = normal(random) / std::sqrt(static_cast<float>(cols));
        return m;
    };
    p.weights.wQ = matrix(D, D);
    p.weights.wK = matrix(D, D);
    p.weights.wV = matrix(D, D);
    p.weights.wO = matrix(D, D);
    p.weights.bQ = matrix(1, D);
    p.weights.bK = matrix(1, D);
    p.weights.bV = matrix(1, D);
    p.weights.bO = matrix(1, D);
    return p;
}

// args: B, N, D, H, threads, reuse (1: refill one trace, as the app does; 0: a new trace each run)
void BM_MultiHeadAttentionTrace(benchmark::State& state)
{
    const std::int64_t B = state.range(0), N = state.range(1), D = state.range(2);
    const int H = static_cast<int>(state.range(3));
    setThreadCount(static_cast<int>(state.range(4)));
    const bool reuse = state.range(5) != 0;
    const Problem p = makeProblem(B, N, D);
    const MultiHeadAttention mha(p.weights, AttentionDescription::fromWeights(p.weights, H));
    AttentionTrace trace;
    if (reuse)
        mha.forward(p.x, p.x, p.x, {},
                    trace); // first touch of the trace's pages, as the app's first run
    for (auto _ : state) {
        if (!reuse)
            trace = AttentionTrace{};
        mha.forward(p.x, p.x, p.x, {}, trace);
        benchmark::DoNotOptimize(trace.output.data());
    }
    std::int64_t traceFloats = 0;
    for (AttentionStep step : kAttentionSteps)
        traceFloats += trace.step(step).size();
    state.counters["trace_MB"] = static_cast<double>(traceFloats) * 4 / 1e6;
    const double flops = 2.0 * B * N * D * D * 4 + 2.0 * 2 * B * N * N * D;
    state.counters["GFLOPs"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    setThreadCount(0);
}

void shapes(benchmark::internal::Benchmark* b)
{
    for (int reuse : {1, 0})
        for (int threads : {1, 2})
            for (const auto& s : std::vector<std::vector<std::int64_t>>{{1, 16, 512, 8},
                                                                        {1, 32, 256, 4},
                                                                        {1, 64, 512, 8},
                                                                        {1, 256, 768, 12},
                                                                        {1, 1024, 768, 12},
                                                                        {4, 128, 512, 8}})
                b->Args({s[0], s[1], s[2], s[3], threads, reuse});
    b->ArgNames({"B", "N", "D", "H", "threads", "reuse"});
}

BENCHMARK(BM_MultiHeadAttentionTrace)->Apply(shapes)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same full trace with FlashAttention's online softmax over key tiles (tile 0: the plain
// pass, side by side in the same run), 2 threads, one trace refilled: what choosing a tile in
// the app or `mha --online-softmax` costs.
// args: N, tile
void BM_OnlineSoftmaxTrace(benchmark::State& state)
{
    const std::int64_t N = state.range(0), tile = state.range(1), D = 768;
    setThreadCount(2);
    const Problem p = makeProblem(1, N, D);
    AttentionDescription d = AttentionDescription::fromWeights(p.weights, 12);
    if (tile > 0)
        d.onlineSoftmaxTile = tile;
    const MultiHeadAttention mha(p.weights, d);
    AttentionTrace trace;
    mha.forward(p.x, p.x, p.x, {}, trace);
    for (auto _ : state) {
        mha.forward(p.x, p.x, p.x, {}, trace);
        benchmark::DoNotOptimize(trace.output.data());
    }
    setThreadCount(0);
}

BENCHMARK(BM_OnlineSoftmaxTrace)
    ->ArgsProduct({{256, 1024}, {0, 1, 16, 64, 256}})
    ->ArgNames({"N", "tile"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
