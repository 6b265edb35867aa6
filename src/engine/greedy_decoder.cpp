#include "engine/greedy_decoder.h"

#include "engine/input_error.h"

#include <cmath>

namespace attnviz::engine {
namespace {

std::optional<int> endToken(const TransformerModel& model)
{
    return model.config().eosTokenId;
}

// The loop both decoders share: `run(prefix, step)` computes the trace of step `step` (0 first).
template <typename RunStep>
std::vector<DecodingStep> decode(const TransformerModel& model, std::vector<int> prefix,
                                 int maxNewTokens, int tokens, RunStep run)
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
        std::shared_ptr<const ModelTrace> trace = std::make_shared<ModelTrace>(run(prefix, i));
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

} // namespace

std::vector<DecodingStep> decodeGreedily(const TransformerModel& model,
                                         const std::vector<int>& source, std::vector<int> prefix,
                                         int maxNewTokens, int tokens, const CapturePolicy& policy,
                                         const Ablation& ablation)
{
    return decode(model, std::move(prefix), maxNewTokens, tokens,
                  [&](const std::vector<int>& input, int) {
                      return model.forward(ModelInput{source, {}, input}, policy, ablation);
                  });
}

std::vector<DecodingStep> decodeGreedilyWithCache(const TransformerModel& model,
                                                  const std::vector<int>& source,
                                                  std::vector<int> prefix, int maxNewTokens,
                                                  int tokens, const CapturePolicy& policy,
                                                  const Ablation& ablation)
{
    DecoderCache cache;
    return decode(model, std::move(prefix), maxNewTokens, tokens,
                  [&](const std::vector<int>& input, int step) {
                      const std::vector<int> fresh =
                          step == 0 ? input : std::vector<int>{input.back()};
                      return model.forwardWithCache(
                          ModelInput{step == 0 ? source : std::vector<int>{}, {}, fresh}, cache,
                          policy, ablation);
                  });
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
