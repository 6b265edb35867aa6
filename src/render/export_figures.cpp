#include "render/export_figures.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace attnviz::render {
namespace {

std::string stepOf(const lesson::ExportPlace& p)
{
    return std::string(engine::stepName(p.step));
}

std::string layerLabel(const lesson::ExportPlace& p)
{
    return p.layer >= 0 ? "layer " + std::to_string(p.layer) : p.layersCombined;
}

std::string headLabel(const lesson::ExportPlace& p)
{
    return p.head >= 0 ? "head " + std::to_string(p.head) : p.head == -2 ? p.headsCombined : "";
}

std::string joined(std::initializer_list<std::string> parts)
{
    std::string out;
    for (const std::string& part : parts)
        if (!part.empty())
            out += (out.empty() ? "" : " · ") + part;
    return out;
}

std::string batchName(const lesson::ExportPlace& p)
{
    return p.namePrefix.find("batch") != std::string::npos ? "batch" + std::to_string(p.batch) : "";
}

} // namespace

const std::vector<ArrangementInfo>& figureArrangements()
{
    static const std::vector<ArrangementInfo> table{
        {FigureArrangement::Each, "each", "one file per matrix (default)"},
        {FigureArrangement::Heads, "heads",
         "one file per layer, block and step with the heads side by side"},
        {FigureArrangement::Grid, "grid",
         "one file per block and step: a row per layer, a column per head"},
    };
    return table;
}

std::vector<ExportFigure> arrangeFigures(const std::vector<lesson::ExportItem>& items,
                                         FigureArrangement arrangement)
{
    std::vector<ExportFigure> figures;
    if (arrangement == FigureArrangement::Each) {
        for (const lesson::ExportItem& item : items)
            figures.push_back({item.baseName, {{item.heatmap}, {item.range}, {}, 1}, {&item}});
        return figures;
    }
    const bool grid = arrangement == FigureArrangement::Grid;
    // Figures in the order their first item comes, panels in the items' order (layer, then head).
    using Key = std::tuple<std::string, int, int, int, int>;
    std::map<Key, std::size_t> index;
    for (const lesson::ExportItem& item : items) {
        const lesson::ExportPlace& p = item.place;
        const Key key{p.filePrefix, grid ? 0 : p.layer, static_cast<int>(p.block), p.batch,
                      static_cast<int>(p.step)};
        auto [at, added] = index.emplace(key, figures.size());
        if (added) {
            ExportFigure f;
            const std::string block = p.layer == -1 ? "" : engine::blockName(p.block);
            const std::string batch = batchName(p);
            if (grid) {
                f.baseName = p.filePrefix + (batch.empty() ? "" : batch + "_") +
                    (block.empty() ? "" : block + "_") + stepOf(p) + "_grid";
                f.content.title = QString::fromStdString(joined(
                    {p.source, block, batch.empty() ? "" : "batch " + std::to_string(p.batch),
                     stepOf(p) + p.titleTail}));
            } else {
                f.baseName = p.filePrefix + p.namePrefix + "heads_" + stepOf(p);
                f.content.title = QString::fromStdString(
                    joined({p.source, p.layer == -1 ? "" : layerLabel(p), block,
                            batch.empty() ? "" : "batch " + std::to_string(p.batch),
                            stepOf(p) + p.titleTail}));
            }
            figures.push_back(std::move(f));
        }
        ExportFigure& f = figures[at->second];
        lesson::Heatmap panel = item.heatmap;
        panel.title = grid ? joined({layerLabel(p), headLabel(p)}) : headLabel(p);
        if (panel.title.empty())
            panel.title = stepOf(p);
        f.content.maps.push_back(std::move(panel));
        f.content.ranges.push_back(item.range);
        f.items.push_back(&item);
    }
    for (ExportFigure& f : figures) {
        if (!grid)
            continue;
        // A row per layer: as many columns as the first layer has panels.
        const int firstLayer = f.items.front()->place.layer;
        int columns = 0;
        for (const lesson::ExportItem* item : f.items)
            columns += item->place.layer == firstLayer;
        f.content.columns = std::max(columns, 1);
    }
    return figures;
}

} // namespace attnviz::render
