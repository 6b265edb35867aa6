#include "lesson/mistake_walkthrough.h"

#include "lesson/walkthrough_variant.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz::lesson {

std::variant<std::shared_ptr<const Walkthrough>, std::string> mistakenWalkthrough(
    const Walkthrough& right, engine::AttentionMistake mistake)
{
    if (auto why = whyNotRecomputable(right))
        return *why;
    engine::MistakenPass pass = engine::forwardWithMistake(
        *right.module, *right.queryInput, *right.keyValueInput, *right.keyValueInput, right.mask,
        mistake, right.rerunOptions(engine::AttentionKeep::all()));
    return withTrace(right, std::move(pass.trace), std::move(pass.appliedMask));
}

engine::AttentionStep stepShowingMistake(engine::AttentionMistake mistake)
{
    const engine::AttentionStep first = engine::firstWrongStep(engine::mistakeInfo(mistake));
    return first <= engine::AttentionStep::Weights ? engine::AttentionStep::Weights : first;
}

double largestOutputChange(const Walkthrough& right, const Walkthrough& wrong)
{
    const engine::Tensor& a = right.trace->output;
    const engine::Tensor& b = wrong.trace->output;
    const std::int64_t columns = std::min(a.dim(2), b.dim(2));
    double largest = 0;
    for (std::int64_t n = 0; n < a.dim(0); ++n)
        for (std::int64_t i = 0; i < a.dim(1); ++i)
            for (std::int64_t c = 0; c < columns; ++c) {
                const double d = std::abs(double(a.at({n, i, c})) - b.at({n, i, c}));
                if (std::isnan(d))
                    return std::numeric_limits<double>::infinity();
                largest = std::max(largest, d);
            }
    return largest;
}

} // namespace attnviz::lesson
