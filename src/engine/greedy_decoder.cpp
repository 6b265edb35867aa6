#include "engine/greedy_decoder.h"

#include "engine/input_error.h"

#include <cmath>

namespace attnviz::engine {
namespace {

std::optional<int> endToken(const TransformerModel& model)
{
    return model.config().eosTokenId;
}

} // namespace

std::vector<DecodingStep> decodeGreedily(const TransformerModel& model,
                                         const std::vector<int>& source, std::vector<int> prefix,
                                         int maxNewTokens, int tokens,
                                         const CapturePolicy& policy, const Ablation& ablation)
{
    if (!model.config().hasDecoder())
        throw InputError("An encoder-only model has no decoder to generate text with.");
    if (tokens < 1 || tokens > model.config().vocabSize)
        throw InputError("Decoding may choose among " + std::to_string(tokens) +
                         " tokens; this model's vocabulary has " +
                         std::to_string(model.config().vocabSize) + ".");
    const std::optional<int> eos = endToken(model);
    std::vector<DecodingStep> steps;
    for (int i = 0; i < maxNewTokens && static_cast<int>(prefix.size()) <= model.config().maxLength;
         ++i) {
        auto trace = std::make_shared<ModelTrace>(
            model.forward(ModelInput{source, {}, prefix}, policy, ablation));
        const auto last = trace->logits.matrix({0}).row(trace->logits.dim(1) - 1);
        Eigen::Index best = 0;
        const float top = last.head(tokens).maxCoeff(&best);
        const double sum = (last.array() - top).cast<double>().exp().sum();
        DecodingStep step;
        step.input = prefix;
        step.chosen = static_cast<int>(best);
        step.probability = static_cast<float>(1.0 / sum);
        step.trace = std::move(trace);
        steps.push_back(std::move(step));
        if (eos && best == *eos)
            break;
        prefix.push_back(static_cast<int>(best));
        if (static_cast<int>(prefix.size()) > model.config().maxLength)
            break;
    }
    return steps;
}

std::vector<int> generatedIds(const TransformerModel& model, const std::vector<DecodingStep>& steps)
{
    const std::optional<int> eos = endToken(model);
    std::vector<int> ids;
    for (const DecodingStep& s : steps)
        if (!eos || s.chosen != *eos)
            ids.push_back(s.chosen);
    return ids;
}

} // namespace attnviz::engine
