// Exporting every attention-weight heatmap of a 12-layer × 12-head model at 128 tokens as PNG
// (issue #5: 144 images). The model has random weights; drawing does not depend on them.
// tools/compare_export_with_matplotlib.py runs the same export through attnviz-cli beside
// matplotlib in one run and reports the ratio (docs/performance.md).
#include "engine/model_run.h"
#include "engine/model_weights.h"
#include "engine/transformer_model.h"
#include "export/export_plan.h"
#include "export/export_writer.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QTemporaryDir>

#include <random>

namespace {

using namespace attnviz;

QApplication& application()
{
    static int argc = 1;
    static char name[] = "export_bench";
    static char* argv[] = {name, nullptr};
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static QApplication app(argc, argv);
    return app;
}

std::shared_ptr<const engine::TransformerModel> randomModel()
{
    engine::ModelConfig c;
    c.name = "bench";
    c.architecture = engine::Architecture::EncoderOnly;
    c.modelWidth = 192;
    c.numHeads = 12;
    c.feedForwardWidth = 384;
    c.encoderLayers = 12;
    c.maxLength = 128;
    std::vector<std::string> tokens;
    for (char ch = 'a'; ch <= 'z'; ++ch)
        tokens.emplace_back(1, ch);
    c.vocabSize = static_cast<int>(tokens.size());
    std::mt19937 random(1);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    std::vector<float> values;
    const auto weights = engine::assembleWeights(c, [&](const std::string& name) -> std::span<const float> {
        for (const auto& spec : engine::weightSpecs(c))
            if (spec.name == name) {
                std::int64_t n = 1;
                for (const auto d : spec.shape)
                    n *= d;
                values.resize(static_cast<std::size_t>(n));
                for (float& v : values)
                    v = name.ends_with("_norm.weight") ? 1.0f : normal(random);
            }
        return values;
    });
    return std::make_shared<const engine::TransformerModel>(c, weights, engine::Vocabulary(tokens));
}

void BM_Export144WeightHeatmapsAsPng(benchmark::State& state)
{
    application();
    const auto model = randomModel();
    std::string text;
    for (int i = 0; i < 128; ++i)
        text += static_cast<char>('a' + i % 26);
    const engine::ModelRun run = engine::runModelOnText(*model, text, std::nullopt);
    const auto items = exporting::planModelExport(*model, run, {});
    QTemporaryDir dir;
    for (auto _ : state)
        exporting::writeExport(items, exporting::ExportFormat::Png, {900, 800, 96}, dir.path(), true);
    state.counters["images"] = static_cast<double>(items.size());
    state.counters["ms_per_image"] = benchmark::Counter(static_cast<double>(items.size()) * 1e-3,
                                                        benchmark::Counter::kIsIterationInvariantRate |
                                                            benchmark::Counter::kInvert);
}

BENCHMARK(BM_Export144WeightHeatmapsAsPng)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

} // namespace

BENCHMARK_MAIN();
