#include "lesson/walkthrough_variant.h"

namespace attnviz::lesson {

std::optional<std::string> whyNotRecomputable(const Walkthrough& w)
{
    if (w.weightsOnly())
        return "an imported file holds attention weights only, without the inputs and weights of "
               "the module";
    if (!w.queryInput || !w.keyValueInput || !w.module)
        return "this run did not keep what the block read; run a shorter text";
    return std::nullopt;
}

std::shared_ptr<const Walkthrough> withTrace(
    const Walkthrough& w, engine::AttentionTrace trace, engine::AttentionMask mask,
    std::shared_ptr<const engine::MultiHeadAttention> module)
{
    auto copy = std::make_shared<Walkthrough>(w);
    if (module)
        copy->module = std::move(module);
    copy->mask = std::move(mask);
    copy->trace = std::make_shared<const engine::AttentionTrace>(std::move(trace));
    copy->milliseconds = 0;
    return copy;
}

} // namespace attnviz::lesson
