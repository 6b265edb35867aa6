#include "export/export_plan.h"

#include "app/model_walkthrough.h"
#include "app/trace_matrix.h"
#include "engine/input_error.h"

#include <algorithm>
#include <map>

namespace attnviz::exporting {
namespace {

template <typename T>
bool selected(const std::vector<T>& list, T value)
{
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

// One colour range per step over the whole set, so the same colour means the same value.
void shareRanges(std::vector<ExportItem>& items, const std::vector<std::string>& stepOfItem)
{
    std::map<std::string, std::vector<app::HeatmapData>> byStep;
    for (std::size_t i = 0; i < items.size(); ++i)
        byStep[stepOfItem[i]].push_back(items[i].data);
    std::map<std::string, std::pair<double, double>> ranges;
    for (const auto& [step, maps] : byStep)
        ranges[step] = app::colourRange(maps);
    for (std::size_t i = 0; i < items.size(); ++i)
        items[i].range = ranges[stepOfItem[i]];
}

// The items of one walkthrough; `namePrefix` and `titlePrefix` say where it sits in a model.
void addWalkthroughItems(const std::shared_ptr<const app::Walkthrough>& w, const ExportSelection& selection,
                         const QString& namePrefix, const QString& titlePrefix, bool nameBatch,
                         std::vector<ExportItem>& items, std::vector<std::string>& steps)
{
    const int heads = static_cast<int>(w->trace.numHeads());
    for (const int h : selection.heads)
        if (h < 0 || h >= heads)
            throw engine::InputError("Head " + std::to_string(h) + " does not exist; the attention has heads 0–" +
                                     std::to_string(heads - 1) + ".");
    for (int b = 0; b < static_cast<int>(w->trace.batchSize()); ++b) {
        const QString batch = nameBatch ? QStringLiteral("batch%1_").arg(b) : QString();
        const QString batchTitle = nameBatch ? QStringLiteral("batch %1 · ").arg(b) : QString();
        for (const engine::AttentionStep step : selection.steps) {
            const QString stepName = QString::fromLatin1(engine::stepName(step).data(), static_cast<qsizetype>(engine::stepName(step).size()));
            if (!app::isPerHead(step)) {
                items.push_back({namePrefix + batch + stepName,
                                 app::traceMatrix(w, step, b, 0, titlePrefix + batchTitle + stepName), {}});
                steps.emplace_back(engine::stepName(step));
                continue;
            }
            for (int h = 0; h < heads; ++h) {
                if (!selected(selection.heads, h))
                    continue;
                items.push_back({namePrefix + batch + QStringLiteral("head%1_").arg(h) + stepName,
                                 app::traceMatrix(w, step, b, h, titlePrefix + batchTitle + QStringLiteral("head %1 · ").arg(h) + stepName),
                                 {}});
                steps.emplace_back(engine::stepName(step));
            }
        }
    }
}

} // namespace

std::vector<std::pair<int, engine::Block>> selectedBlocks(const engine::TransformerModel& model,
                                                          const engine::ModelTrace& trace, const ExportSelection& selection)
{
    const int layers = trace.layerCount();
    for (const int L : selection.layers)
        if (L < 0 || L >= layers)
            throw engine::InputError("Layer " + std::to_string(L) + " does not exist; " + model.config().name + " has layers 0–" +
                                     std::to_string(layers - 1) + ".");
    for (const engine::Block b : selection.blocks) {
        bool present = false;
        for (int L = 0; L < layers; ++L)
            present = present || trace.attentionBlock(L, b);
        if (!present)
            throw engine::InputError(std::string("Block ") + engine::blockName(b) + " does not exist in " +
                                     model.config().name + ", a " + engine::architectureName(model.config().architecture) + " model.");
    }
    std::vector<std::pair<int, engine::Block>> chosen;
    for (int L = 0; L < layers; ++L)
        for (const engine::Block block : trace.attentionBlocks(L))
            if (selected(selection.layers, L) && selected(selection.blocks, block))
                chosen.emplace_back(L, block);
    return chosen;
}

std::vector<ExportItem> planModelExport(const engine::TransformerModel& model, const engine::ModelRun& run,
                                        const ExportSelection& selection)
{
    std::vector<ExportItem> items;
    std::vector<std::string> steps;
    const QString modelName = QString::fromStdString(model.config().name);
    for (const auto& [L, block] : selectedBlocks(model, *run.trace, selection)) {
        const auto w = app::walkthroughForBlock(model, run, {L, block, -1});
        const QString blockName = QString::fromLatin1(engine::blockName(block));
        addWalkthroughItems(w, selection, QStringLiteral("layer%1_%2_").arg(L).arg(blockName),
                            QStringLiteral("%1 · layer %2 · %3 · ").arg(modelName).arg(L).arg(blockName), false, items, steps);
    }
    shareRanges(items, steps);
    return items;
}

std::vector<ExportItem> planWalkthroughExport(const std::shared_ptr<const app::Walkthrough>& w,
                                              const ExportSelection& selection, const QString& titlePrefix)
{
    std::vector<ExportItem> items;
    std::vector<std::string> steps;
    addWalkthroughItems(w, selection, QString(), titlePrefix, w->trace.batchSize() > 1, items, steps);
    shareRanges(items, steps);
    return items;
}

std::shared_ptr<const app::Walkthrough> walkthroughForCase(const io::AttentionCase& c, engine::AttentionTrace trace)
{
    auto w = std::make_shared<app::Walkthrough>();
    const auto positions = [](std::int64_t n) {
        std::vector<std::string> out;
        for (std::int64_t i = 0; i < n; ++i)
            out.push_back(std::to_string(i));
        return out;
    };
    w->settings.modelWidth = static_cast<int>(c.query.dim(2));
    w->settings.heads = c.numHeads;
    for (std::int64_t b = 0; b < c.query.dim(0); ++b) {
        w->queryTokens.push_back(positions(c.query.dim(1)));
        w->keyTokens.push_back(positions(c.key.dim(1)));
        w->keyLengths.push_back(static_cast<int>(c.key.dim(1)));
    }
    w->queryInput = c.query;
    w->keyValueInput = c.key;
    w->weights = c.weights;
    w->trace = std::move(trace);
    return w;
}

} // namespace attnviz::exporting
