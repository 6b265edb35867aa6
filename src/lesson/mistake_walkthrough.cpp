#include "lesson/mistake_walkthrough.h"

#include <algorithm>
#include <cmath>

namespace attnviz::lesson {

std::variant<std::shared_ptr<const Walkthrough>, std::string> mistakenWalkthrough(
    const Walkthrough& right, engine::AttentionMistake mistake)
{
    if (right.weightsOnly())
        return std::string("an imported file holds attention weights only; the mistakes need the "
                           "inputs and the weights of the module");
    if (!right.queryInput || !right.keyValueInput || !right.weights)
        return std::string("this run did not keep what the block read; run a shorter text to "
                           "compare the mistakes");
    const engine::MultiHeadAttention module(*right.weights, right.heads());
    engine::MistakenPass pass = engine::forwardWithMistake(
        module, *right.queryInput, *right.keyValueInput, *right.keyValueInput, right.mask, mistake,
        right.trace->ablatedHeads);
    auto wrong = std::make_shared<Walkthrough>(right);
    wrong->mask = std::move(pass.appliedMask);
    wrong->trace = std::make_shared<const engine::AttentionTrace>(std::move(pass.trace));
    wrong->milliseconds = 0;
    return std::shared_ptr<const Walkthrough>(std::move(wrong));
}

engine::AttentionStep stepShowingMistake(engine::AttentionMistake mistake)
{
    const engine::AttentionStep first = engine::mistakeInfo(mistake).firstWrongStep;
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
            for (std::int64_t c = 0; c < columns; ++c)
                largest = std::max(largest, std::abs(double(a.at({n, i, c})) - b.at({n, i, c})));
    return largest;
}

} // namespace attnviz::lesson
