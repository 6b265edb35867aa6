#include "lesson/attention_sinks.h"

#include <memory>
#include <string>

namespace attnviz::lesson {
namespace {

// The share of head h's weight on key 0, averaged over the query rows that see more than key 0.
double firstTokenShare(const engine::AttentionTrace& t, std::int64_t h)
{
    double sum = 0;
    std::int64_t rows = 0;
    const auto w = t.weights.matrix({0, h});
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        const double first = w(i, 0);
        const double all = w.row(i).cast<double>().sum();
        if (all <= 0 || first >= all)
            continue; // blocked entirely, or key 0 is all it can see
        sum += first / all;
        ++rows;
    }
    return rows ? sum / static_cast<double>(rows) : 0.0;
}

} // namespace

std::vector<AttentionSinkMap> attentionSinkMaps(const engine::ModelTrace& trace)
{
    std::vector<AttentionSinkMap> maps;
    const int layers = trace.layerCount();
    for (const engine::Block block : {engine::Block::Self, engine::Block::MaskedSelf}) {
        int heads = 0, present = 0;
        for (int l = 0; l < layers; ++l)
            if (const engine::AttentionBlockTrace* b = trace.attentionBlock(l, block);
                b && b->attention.has(engine::AttentionStep::Weights) &&
                b->attention.keyLength() > 1) {
                heads = std::max(heads, static_cast<int>(b->attention.numHeads()));
                present = l + 1;
            }
        if (heads == 0)
            continue;
        auto values = std::make_shared<std::vector<float>>(
            static_cast<std::size_t>(present) * static_cast<std::size_t>(heads), 0.0f);
        AttentionSinkMap map{block, {}, 0};
        int cells = 0;
        for (int l = 0; l < present; ++l) {
            const engine::AttentionBlockTrace* b = trace.attentionBlock(l, block);
            if (!b || !b->attention.has(engine::AttentionStep::Weights))
                continue;
            for (std::int64_t h = 0; h < b->attention.numHeads(); ++h) {
                const double share = firstTokenShare(b->attention, h);
                (*values)[static_cast<std::size_t>(l * heads + h)] = static_cast<float>(share);
                map.mean += share;
                ++cells;
            }
        }
        map.mean = cells ? map.mean / cells : 0.0;
        map.heatmap = layersByHeads(values, present, heads);
        Heatmap& m = map.heatmap;
        m.caption = std::string(engine::blockName(block)) + ": share of weight on the first token";
        m.title = m.caption;
        m.scale = ColourScale::Sequential;
        maps.push_back(std::move(map));
    }
    return maps;
}

} // namespace attnviz::lesson
