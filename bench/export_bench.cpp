// Exporting every attention-weight heatmap of a 12-layer × 12-head model at 128 tokens as PNG
// (issue #5: 144 images). The model has random weights; drawing does not depend on them.
// tools/compare_export_with_matplotlib.py runs the same export through attnviz-cli beside
// matplotlib in one run and reports the ratio (docs/performance.md).
#include "io/tokenizer/vocabulary_tokenizer.h"
#include "lesson/export_plan.h"
#include "random_model.h"
#include "render/export_formats.h"

#include <benchmark/benchmark.h>

#include <QGuiApplication>
#include <QTemporaryDir>

#include <random>

namespace {

using namespace attnviz;

QGuiApplication& application()
{
    static int argc = 1;
    static char name[] = "export_bench";
    static char* argv[] = {name, nullptr};
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static QGuiApplication app(argc, argv);
    return app;
}

std::shared_ptr<const io::LoadedModel> randomModel()
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
    auto loaded = std::make_shared<io::LoadedModel>();
    loaded->model = bench::randomModel(c);
    loaded->tokenizer =
        std::make_shared<io::VocabularyTokenizer>(tokens, io::VocabularyTokenizer::Unit::Character);
    loaded->layout = &io::attnvizLayout();
    return loaded;
}

void BM_Export144WeightHeatmapsAsPng(benchmark::State& state)
{
    application();
    const auto model = randomModel();
    std::string text;
    for (int i = 0; i < 128; ++i)
        text += static_cast<char>('a' + i % 26);
    const auto run =
        std::make_shared<const lesson::ModelRun>(lesson::runModelOnText(model, {.text = text}));
    render::ExportJob job;
    job.items = lesson::planModelExport(run, {});
    job.figure.size = {900, 800, 96};
    const auto& items = job.items;
    QTemporaryDir dir;
    for (auto _ : state)
        render::writeExport(*render::exportFormat("png"), job, dir.path().toStdString(), true);
    state.counters["images"] = static_cast<double>(items.size());
    state.counters["ms_per_image"] = benchmark::Counter(
        static_cast<double>(items.size()) * 1e-3,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_Export144WeightHeatmapsAsPng)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

} // namespace

BENCHMARK_MAIN();
