#include "lesson/case_walkthrough.h"

#include "lesson/memory_budget.h"

#include <algorithm>
#include <chrono>

namespace attnviz::lesson {
namespace {

std::vector<std::string> positions(std::int64_t n)
{
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < n; ++i)
        out.push_back(std::to_string(i));
    return out;
}

} // namespace

std::shared_ptr<const Walkthrough> computeCase(io::AttentionCase c, const std::string& name,
                                               const engine::AttentionOptions& options,
                                               std::optional<std::uint64_t> maxMemory)
{
    auto module = std::make_shared<const engine::MultiHeadAttention>(std::move(c.weights),
                                                                     std::move(c.description));
    const engine::AttentionDescription& d = module->description();
    engine::AttentionTrace::Sizes sizes;
    sizes.batch = c.query.dim(0);
    sizes.heads = d.queryHeads;
    sizes.keyValueHeads = d.keyValueHeads;
    sizes.queries = c.query.dim(1);
    sizes.keys = c.key.dim(1);
    sizes.queryKey = d.queryKeySize;
    sizes.value = d.valueSize;
    sizes.tiles = d.onlineSoftmaxTiles(sizes.keys);
    MemoryBudget::forThisMachine(maxMemory).check(
        attentionTraceBytes(sizes, d, module->outputSize(), options.keep),
        "This case (" + std::to_string(sizes.queries) + " queries × " + std::to_string(sizes.keys) +
            " keys × " + std::to_string(sizes.heads) + " heads × " + std::to_string(sizes.batch) +
            " items)");
    auto trace = std::make_shared<engine::AttentionTrace>();
    const auto start = std::chrono::steady_clock::now();
    engine::AttentionOptions withPositions = options;
    withPositions.positions = c.positions;
    module->forward(c.query, c.key, c.value, c.mask, *trace, withPositions);
    const auto elapsed = std::chrono::steady_clock::now() - start;

    auto w = std::make_shared<Walkthrough>();
    w->source = CaseSource{name};
    w->milliseconds = std::chrono::duration<double, std::milli>(elapsed).count();
    for (std::int64_t b = 0; b < c.query.dim(0); ++b) {
        w->queryTokens.push_back(positions(c.query.dim(1)));
        w->keyTokens.push_back(positions(c.key.dim(1)));
        w->keyLengths.push_back(static_cast<int>(c.key.dim(1)));
    }
    // A case's keys are a sequence of their own unless the file passes the queries again.
    w->crossAttention = c.key.shape() != c.query.shape() ||
        !std::equal(c.key.values().begin(), c.key.values().end(), c.query.values().begin());
    w->queryInput = std::make_shared<const engine::Tensor>(std::move(c.query));
    w->keyValueInput = std::make_shared<const engine::Tensor>(std::move(c.key));
    w->mask = module->maskInForce(c.mask);
    w->module = std::move(module);
    w->positions = std::move(c.positions);
    w->trace = std::move(trace);
    return w;
}

} // namespace attnviz::lesson
