#include "lesson/ablation_difference.h"

#include <cmath>

namespace attnviz::lesson {
namespace {

// A cell blocked in both runs stays blocked (−∞ − −∞ would be NaN); equal values, infinite or
// not, differ by exactly 0.
float differenceOf(float off, float on)
{
    if (off == on)
        return std::isinf(off) && off < 0 ? off : 0.0f;
    return off - on;
}

} // namespace

std::shared_ptr<const Walkthrough> ablationDifference(const Walkthrough& w)
{
    if (!w.intact)
        return nullptr;
    const engine::AttentionTrace& off = *w.trace;
    const engine::AttentionTrace& on = *w.intact->trace;
    engine::AttentionTrace difference;
    difference.sizes = off.sizes;
    difference.fullyMaskedRows = off.fullyMaskedRows;
    difference.ablatedHeads = off.ablatedHeads;
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable) {
        const engine::Tensor& a = off.step(info.step);
        const engine::Tensor& b = on.step(info.step);
        if (a.rank() == 0 || a.shape() != b.shape())
            continue;
        engine::Tensor& d = difference.step(info.step);
        d = a;
        const auto before = b.values();
        auto values = d.values();
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = differenceOf(values[i], before[i]);
    }
    auto shown = std::make_shared<Walkthrough>(w);
    shown->trace = std::make_shared<const engine::AttentionTrace>(std::move(difference));
    shown->milliseconds = 0;
    shown->difference = true;
    shown->intact = nullptr;
    return shown;
}

} // namespace attnviz::lesson
