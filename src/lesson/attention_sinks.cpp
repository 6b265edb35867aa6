#include "lesson/attention_sinks.h"

#include "engine/input_error.h"
#include "lesson/memory_budget.h"

#include <cmath>
#include <memory>
#include <string>

namespace attnviz::lesson {

// A row whose sliding window has left key 0 behind says nothing about it.
double firstTokenShare(const engine::AttentionTrace& t, std::int64_t batch, std::int64_t h)
{
    double sum = 0;
    std::int64_t rows = 0;
    const auto w = t.weights.matrix({batch, h});
    const std::optional<std::int64_t> window = t.description.mask.slidingWindow;
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        if (window && i >= *window)
            break;
        const double first = w(i, 0);
        const double all = w.row(i).cast<double>().sum();
        if (all <= 0 || first >= all)
            continue; // blocked entirely, or key 0 is all it can see
        sum += first / all;
        ++rows;
    }
    return rows ? sum / static_cast<double>(rows) : 0.0;
}

std::vector<AttentionSinkMap> attentionSinkMaps(const engine::ModelTrace& trace)
{
    std::vector<AttentionSinkMap> maps;
    const int layers = trace.layerCount();
    for (const engine::Block block : {engine::Block::Self, engine::Block::MaskedSelf}) {
        int heads = 0, present = 0;
        for (int l = 0; l < layers; ++l)
            if (const engine::AttentionBlockTrace* b = trace.attentionBlock(l, block); b &&
                b->attention.has(engine::AttentionStep::Weights) && b->attention.keyLength() > 1) {
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
                const double share = firstTokenShare(b->attention, 0, h);
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

FirstTokenRemoved withoutFirstToken(const io::LoadedModel& model, const std::vector<int>& ids,
                                    std::optional<std::uint64_t> maxMemory)
{
    const engine::ModelConfig& c = model.model->config();
    if (c.architecture != engine::Architecture::DecoderOnly)
        throw engine::InputError("Removing the first token compares next-token predictions: it "
                                 "needs a decoder-only model.");
    if (ids.size() < 3)
        throw engine::InputError("The text has " + std::to_string(ids.size()) +
                                 " tokens; removing the first needs at least 3, so that a "
                                 "prediction is left to compare.");
    engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    policy.layerTensors = false;
    policy.allLogits = true;
    MemoryBudget::forThisMachine(maxMemory).check(
        modelRunBytes(c, static_cast<std::int64_t>(ids.size()), policy),
        "Running the text again without its first token");
    const std::vector<int> rest(ids.begin() + 1, ids.end());
    const engine::ModelTrace with = model.model->forward({{}, {}, ids}, policy);
    const engine::ModelTrace without = model.model->forward({{}, {}, rest}, policy);

    FirstTokenRemoved out;
    out.with = attentionSinkMaps(with);
    out.without = attentionSinkMaps(without);
    // Position k of the whole text and position k − 1 of the rest both predict token k + 1.
    const auto crossEntropy = [](Eigen::Ref<const Eigen::RowVectorXf> logits, int target) {
        const double top = logits.maxCoeff();
        const double sum = (logits.cast<double>().array() - top).exp().sum();
        return top + std::log(sum) - logits(target);
    };
    for (std::size_t k = 1; k + 1 < ids.size(); ++k) {
        const auto a = with.logits.matrix({0}).row(static_cast<Eigen::Index>(k));
        const auto b = without.logits.matrix({0}).row(static_cast<Eigen::Index>(k - 1));
        const int next = ids[k + 1];
        out.lossWith += crossEntropy(a, next);
        out.lossWithout += crossEntropy(b, next);
        Eigen::Index choiceA = 0, choiceB = 0;
        a.maxCoeff(&choiceA);
        b.maxCoeff(&choiceB);
        out.changedChoices += choiceA != choiceB;
        ++out.predictions;
    }
    out.lossWith /= out.predictions;
    out.lossWithout /= out.predictions;
    return out;
}

} // namespace attnviz::lesson
