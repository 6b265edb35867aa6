#include "lesson/image_classes.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnviz::lesson {

std::vector<ClassScore> topClasses(const engine::ModelTrace& trace,
                                   const engine::ModelConfig& config, int count)
{
    if (!config.image || trace.classLogits.rank() != 2)
        return {};
    const auto logits = trace.classLogits.values();
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (const float v : logits)
        sum += std::exp(static_cast<double>(v) - top);
    std::vector<int> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return logits[static_cast<std::size_t>(a)] > logits[static_cast<std::size_t>(b)];
    });
    std::vector<ClassScore> out;
    for (int k = 0; k < std::min<int>(count, static_cast<int>(order.size())); ++k) {
        const int i = order[static_cast<std::size_t>(k)];
        const double logit = logits[static_cast<std::size_t>(i)];
        const auto& labels = config.image->labels;
        out.push_back({i,
                       static_cast<std::size_t>(i) < labels.size()
                           ? labels[static_cast<std::size_t>(i)]
                           : "class " + std::to_string(i),
                       logit, std::exp(logit - top) / sum});
    }
    return out;
}

} // namespace attnviz::lesson
