#include "lesson/importance_heatmap.h"

#include <algorithm>

namespace attnviz::lesson {

std::vector<ImportanceMap> importanceHeatmaps(const ImportanceReport& report, int heads)
{
    std::vector<ImportanceMap> maps;
    if (heads < 1)
        return maps;
    for (const engine::Block block : engine::kAttentionBlocks) {
        int layers = 0;
        for (const HeadImportance& h : report.heads)
            if (h.head.block == block)
                layers = std::max(layers, h.head.layer + 1);
        if (layers == 0)
            continue;
        auto values = std::make_shared<std::vector<float>>(
            static_cast<std::size_t>(layers) * static_cast<std::size_t>(heads), 0.0f);
        for (const HeadImportance& h : report.heads)
            if (h.head.block == block && h.head.head < heads)
                (*values)[static_cast<std::size_t>(h.head.layer) * heads + h.head.head] =
                    static_cast<float>(h.harm);
        Heatmap map = layersByHeads(values, layers, heads);
        map.caption = std::string(engine::blockName(block)) + ": harm of switching a head off";
        map.title = map.caption + " (" + metricName(report.metric) + ")";
        map.scale = ColourScale::Diverging;
        maps.push_back({block, std::move(map)});
    }
    return maps;
}

} // namespace attnviz::lesson
