// The attention module's matrix products three ways, side by side (issue #28, docs/performance.md
// "Products"): Eigen's GEMM, the engine's own (engine/accurate_product.h), and, when the machine
// has them, Debian's tuned BLAS libraries through their Fortran sgemm_ (opened with dlopen, so
// building needs neither): OpenBLAS (libopenblas0-openmp) and BLIS (libblis4-openmp).
// Each reports GFLOP/s and its largest error against the same product in double.
#include "engine/accurate_product.h"
#include "engine/tensor.h"
#include "engine/thread_count.h"

#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <random>
#include <string>

namespace {

using attnviz::engine::RowMatrix;
using Sgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*,
                       const int*);

Sgemm sgemmFrom(const char* library)
{
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    return handle ? reinterpret_cast<Sgemm>(dlsym(handle, "sgemm_")) : nullptr;
}

struct Shape {
    int m, k, n;
};

RowMatrix randomMatrix(int rows, int cols, std::mt19937& random)
{
    std::normal_distribution<float> normal;
    RowMatrix m(rows, cols);
    for (float& v : m.reshaped())
        v = normal(random);
    return m;
}

// args: m, k, n, threads, way (0 Eigen, 1 the engine's, 2 OpenBLAS, 3 BLIS). c = a bᵀ with
// a [m × k] and b [n × k] row-major, as a projection x Wᵀ.
void BM_Product(benchmark::State& state)
{
    const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1)),
              n = static_cast<int>(state.range(2));
    attnviz::engine::setThreadCount(static_cast<int>(state.range(3)));
    const int way = static_cast<int>(state.range(4));
    Sgemm sgemm = nullptr;
    if (way >= 2) {
        sgemm = sgemmFrom(way == 2 ? "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"
                                   : "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4");
        if (!sgemm) {
            state.SkipWithError("library not installed");
            return;
        }
    }
    std::mt19937 random(7);
    const RowMatrix a = randomMatrix(m, k, random), b = randomMatrix(n, k, random);
    RowMatrix c(m, n);
    const float one = 1, zero = 0;
    const auto run = [&] {
        if (way == 0)
            c.noalias() = a * b.transpose();
        else if (way == 1)
            attnviz::engine::multiplyTransposedOnThreads(attnviz::engine::readRows(a),
                                                         attnviz::engine::readRows(b),
                                                         attnviz::engine::writeRows(c));
        else // column-major cᵀ = b aᵀ
            sgemm("T", "N", &n, &m, &k, &one, b.data(), &k, a.data(), &k, &zero, c.data(), &n);
    };
    for (auto _ : state) {
        run();
        benchmark::DoNotOptimize(c.data());
    }
    const Eigen::MatrixXd exact = a.cast<double>() * b.cast<double>().transpose();
    state.counters["max_error"] = (c.cast<double>() - exact).cwiseAbs().maxCoeff();
    state.counters["GFLOPs"] =
        benchmark::Counter(2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    attnviz::engine::setThreadCount(0);
}

void shapes(benchmark::internal::Benchmark* b)
{
    // projections at 64, 256 and 1024 tokens; GPT-2's MLP; the context product of one block
    for (const Shape s : {Shape{64, 512, 512}, Shape{256, 768, 768}, Shape{1024, 768, 768},
                          Shape{1024, 768, 3072}, Shape{64, 1024, 64}})
        for (int threads : {1, 2})
            for (int way : {0, 1, 2, 3})
                b->Args({s.m, s.k, s.n, threads, way});
    b->ArgNames({"m", "k", "n", "threads", "way"});
}

BENCHMARK(BM_Product)->Apply(shapes)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
