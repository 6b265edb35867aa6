#include "lesson/export_plan.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "lesson/model_walkthrough.h"
#include "lesson/step_view.h"

#include <algorithm>
#include <map>

namespace attnviz::lesson {
namespace {

using ItemKey = ExportPlace;

// "0–11", "0, 2, 5–7".
std::string numberList(std::vector<int> numbers)
{
    std::sort(numbers.begin(), numbers.end());
    std::string out;
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
            ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(numbers[i]) +
            (j > i ? "–" + std::to_string(numbers[j]) : "");
        i = j + 1;
    }
    return out;
}

// Replaces each group of items that differ only in `differs` (the head, or the layer) by their
// mean or maximum. Items of steps with one matrix for all heads are left as they are when
// combining heads.
void combine(std::vector<ExportItem>& items, std::vector<ItemKey>& keys, Combine how, bool heads)
{
    if (how == Combine::None)
        return;
    std::vector<ExportItem> outItems;
    std::vector<ItemKey> outKeys;
    std::vector<bool> used(items.size(), false);
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (used[i])
            continue;
        const ItemKey& k = keys[i];
        if (heads && k.head < 0) {
            outItems.push_back(items[i]);
            outKeys.push_back(k);
            continue;
        }
        std::vector<Heatmap> group;
        std::vector<int> members;
        for (std::size_t j = i; j < items.size(); ++j) {
            const ItemKey& o = keys[j];
            const bool same = o.step == k.step && o.block == k.block && o.batch == k.batch &&
                (heads ? o.layer == k.layer && o.head >= 0 : o.head == k.head);
            if (!used[j] && same && items[j].heatmap.rows() == items[i].heatmap.rows() &&
                items[j].heatmap.cols() == items[i].heatmap.cols()) {
                used[j] = true;
                group.push_back(items[j].heatmap);
                members.push_back(heads ? o.head : o.layer);
            }
        }
        const std::string what =
            combineName(how) + " over " + (heads ? "heads " : "layers ") + numberList(members);
        const std::string step(engine::stepName(k.step));
        ItemKey key = k;
        const std::string batch = k.namePrefix.find("batch") != std::string::npos
            ? " · batch " + std::to_string(k.batch)
            : "";
        std::string name, title;
        if (heads) {
            key.head = -2; // a combination of heads
            key.headsCombined = what;
            name = k.namePrefix + combineName(how) + "_heads_" + step;
            title = k.source +
                (k.layer >= 0
                     ? " · layer " + std::to_string(k.layer) + " · " + engine::blockName(k.block)
                     : "") +
                batch + " · " + what + " · " + step + k.titleTail;
        } else {
            key.layer = -2; // a combination of layers
            key.layersCombined = what;
            const std::string headName = k.head >= 0 ? "head" + std::to_string(k.head) + "_"
                : k.head == -2 ? k.headsCombined.substr(0, k.headsCombined.find(' ')) + "_heads_"
                               : "";
            const std::string headTitle = k.head >= 0 ? "head " + std::to_string(k.head) + " · "
                : k.head == -2                        ? k.headsCombined + " · "
                                                      : "";
            key.namePrefix = combineName(how) + "_layers_" + engine::blockName(k.block) + "_";
            name = key.namePrefix + headName + step;
            title = k.source + " · " + what + " · " + engine::blockName(k.block) + batch + " · " +
                headTitle + step + k.titleTail;
        }
        outItems.push_back({name, combinedMap(group, how, title, step), {}, {}, {}});
        outKeys.push_back(key);
    }
    items = std::move(outItems);
    keys = std::move(outKeys);
}

// The selection's tokens, combinations and colour ranges, applied to the planned items.
void finish(std::vector<ExportItem>& items, std::vector<ItemKey>& keys,
            const ExportSelection& selection, const ScaleChoice& scale)
{
    if (selection.tokens)
        for (ExportItem& item : items)
            item.heatmap = tokenSlice(item.heatmap, *selection.tokens);
    combine(items, keys, selection.overHeads, true);
    combine(items, keys, selection.overLayers, false);
    // One colour range per step over the whole set (so the same colour means the same value),
    // per map, or the user's.
    std::map<engine::AttentionStep, std::vector<Heatmap>> byStep;
    for (std::size_t i = 0; i < items.size(); ++i)
        byStep[keys[i].step].push_back(items[i].heatmap);
    std::map<engine::AttentionStep, std::pair<double, double>> ranges;
    for (const auto& [step, maps] : byStep)
        ranges[step] = scale.rangeOf(maps);
    for (std::size_t i = 0; i < items.size(); ++i) {
        items[i].range = scale.mode == RangeMode::PerMap ? scale.rangeOf({items[i].heatmap})
                                                         : ranges[keys[i].step];
        items[i].rangeNote =
            scale.describe(items[i].range, std::string(engine::stepName(keys[i].step)));
        items[i].place = keys[i];
    }
}

void checkHeads(const IndexSet& heads, int count)
{
    if (const auto missing = heads.firstAtOrAbove(count))
        throw engine::InputError("Head " + std::to_string(*missing) +
                                 " does not exist; the attention has heads 0–" +
                                 std::to_string(count - 1) + ".");
}

// Attention weights computed elsewhere have no other step to draw, whether a step is asked for
// by name or with all the others.
void checkImportedSteps(const Walkthrough& w, const std::vector<engine::AttentionStep>& steps)
{
    const auto* import = std::get_if<ImportSource>(&w.source);
    if (!import)
        return;
    for (const engine::AttentionStep step : steps)
        if (step != engine::AttentionStep::Weights)
            throw engine::InputError(io::printable(import->name) +
                                     " holds attention weights only (computed elsewhere), so it "
                                     "has the weights step and no " +
                                     std::string(engine::stepName(step)) + " step.");
}

// What a walkthrough's source is called without its layer: "gpt2", a case's name.
std::string sourceName(const Walkthrough& w)
{
    return std::visit(
        [](const auto& source) -> std::string {
            using Source = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<Source, ModelBlockSource>)
                return source.model;
            else if constexpr (std::is_same_v<Source, ImportSource> ||
                               std::is_same_v<Source, CaseSource>)
                return source.name;
            else
                return "playground";
        },
        w.source);
}

void addWalkthroughItems(const std::shared_ptr<const Walkthrough>& w,
                         const ExportSelection& selection, const std::string& namePrefix,
                         const std::string& titlePrefix, bool nameBatch, ItemKey where,
                         std::vector<ExportItem>& items, std::vector<ItemKey>& keys)
{
    where.source = sourceName(*w);
    checkHeads(selection.heads, w->heads());
    checkImportedSteps(*w, selection.steps);
    // A figure of a pass with heads switched off says so in its title.
    const std::vector<int>& off = w->trace->ablatedHeads;
    std::string offNote;
    for (const int h : off)
        offNote += (offNote.empty() ? " (head" + std::string(off.size() > 1 ? "s " : " ") : ", ") +
            std::to_string(h);
    if (!offNote.empty())
        offNote += " off)";
    // Steps of a variant the module is not (q_rotated without rotary positions) are left out;
    // asking for nothing but those is an error.
    std::vector<engine::AttentionStep> computed;
    for (const engine::AttentionStep step : selection.steps)
        if (w->trace->computes(step))
            computed.push_back(step);
    if (computed.empty() && !selection.steps.empty())
        throw engine::InputError(
            "The attention shown has no " + std::string(engine::stepName(selection.steps.front())) +
            " step: " + std::string(engine::stepName(selection.steps.front())) +
            " exists only in modules with " +
            (engine::stepInfo(selection.steps.front()).stage == engine::AttentionStage::Rotate
                 ? "rotary positions (rope_theta)."
                 : "a bias added to the scores."));
    for (int b = 0; b < w->batch(); ++b) {
        const std::string batch = nameBatch ? "batch" + std::to_string(b) + "_" : "";
        const std::string batchTitle = nameBatch ? "batch " + std::to_string(b) + " · " : "";
        for (const engine::AttentionStep step : computed) {
            const std::string stepName(engine::stepName(step));
            ItemKey key = where;
            key.step = step;
            key.batch = b;
            key.namePrefix = namePrefix + batch;
            key.titleTail = offNote;
            if (!engine::stepInfo(step).perHead) {
                items.push_back(
                    {namePrefix + batch + stepName,
                     traceHeatmap(w, step, b, 0, titlePrefix + batchTitle + stepName + offNote,
                                  stepName),
                     {},
                     {},
                     {}});
                keys.push_back(key);
                continue;
            }
            // K/V steps have one matrix per K/V head, which grouped-query attention has fewer of.
            const int heads = static_cast<int>(w->trace->step(step).dim(1));
            for (const int h : selection.heads.within(heads)) {
                const bool isOff = std::find(off.begin(), off.end(), h) != off.end();
                const std::string head =
                    "head " + std::to_string(h) + (isOff ? " (switched off)" : "") + " · ";
                items.push_back({namePrefix + batch + "head" + std::to_string(h) + "_" + stepName,
                                 traceHeatmap(w, step, b, h,
                                              titlePrefix + batchTitle + head + stepName, stepName),
                                 {},
                                 {},
                                 {}});
                key.head = h;
                keys.push_back(key);
            }
        }
    }
}

engine::AttentionKeep keepOf(const std::vector<engine::AttentionStep>& steps)
{
    engine::AttentionKeep keep;
    for (const engine::AttentionStep s : steps)
        keep.add(s);
    return keep;
}

} // namespace

std::string walkthroughTitle(const Walkthrough& w)
{
    return std::visit(
        [](const auto& source) -> std::string {
            using Source = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<Source, ModelBlockSource>)
                return source.model + " · layer " + std::to_string(source.layer) + " · " +
                    engine::blockName(source.block);
            else if constexpr (std::is_same_v<Source, ImportSource>)
                return source.name + " · layer " + std::to_string(source.layer) + " · " +
                    engine::blockName(source.block);
            else if constexpr (std::is_same_v<Source, CaseSource>)
                return source.name;
            else
                return "playground";
        },
        w.source);
}

std::vector<std::pair<int, engine::Block>> selectedBlocks(const ModelRun& run,
                                                          const ExportSelection& selection)
{
    const engine::ModelTrace& trace = *run.trace;
    const engine::ModelConfig& config = run.config;
    const int layers = trace.layerCount();
    if (const auto missing = selection.layers.firstAtOrAbove(layers))
        throw engine::InputError("Layer " + std::to_string(*missing) + " does not exist; " +
                                 io::printable(config.name, 60) + " has layers 0–" +
                                 std::to_string(layers - 1) + ".");
    for (const engine::Block b : selection.blocks) {
        bool present = false;
        for (int L = 0; L < layers && !present; ++L)
            present = trace.attentionBlock(L, b) != nullptr;
        if (!present)
            throw engine::InputError(std::string("Block ") + engine::blockName(b) +
                                     " does not exist in " + io::printable(config.name, 60) + ", " +
                                     engine::architectureWithArticle(config.architecture) +
                                     " model.");
    }
    std::vector<std::pair<int, engine::Block>> chosen;
    for (const int L : selection.layers.within(layers))
        for (const engine::Block block : trace.attentionBlocks(L))
            if (selection.blocks.empty() ||
                std::find(selection.blocks.begin(), selection.blocks.end(), block) !=
                    selection.blocks.end())
                chosen.emplace_back(L, block);
    return chosen;
}

std::vector<ExportItem> planModelExport(const std::shared_ptr<const ModelRun>& run,
                                        const ExportSelection& selection, const ScaleChoice& scale)
{
    std::vector<ExportItem> items;
    std::vector<ItemKey> keys;
    checkHeads(selection.heads, run->config.numHeads);
    for (const auto& [L, block] : selectedBlocks(*run, selection)) {
        const auto w = walkthroughForBlock(run, {L, block, -1}, keepOf(selection.steps));
        const std::string blockName = engine::blockName(block);
        ItemKey where{engine::AttentionStep::Weights, L, block};
        addWalkthroughItems(w, selection, "layer" + std::to_string(L) + "_" + blockName + "_",
                            walkthroughTitle(*w) + " · ", false, where, items, keys);
    }
    finish(items, keys, selection, scale);
    return items;
}

std::vector<ExportItem> planWalkthroughExport(const std::shared_ptr<const Walkthrough>& w,
                                              const ExportSelection& selection,
                                              const std::string& namePrefix,
                                              const std::string& titlePrefix,
                                              const ScaleChoice& scale)
{
    std::vector<ExportItem> items;
    std::vector<ItemKey> keys;
    addWalkthroughItems(w, selection, namePrefix, titlePrefix, w->batch() > 1, ItemKey{}, items,
                        keys);
    finish(items, keys, selection, scale);
    return items;
}

} // namespace attnviz::lesson
