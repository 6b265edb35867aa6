#include "lesson/kv_cache_decoding.h"

#include "engine/input_error.h"
#include "engine/key_value_cache.h"
#include "lesson/memory_budget.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;
using engine::Block;

// What a cached step keeps: the weights, and the keys and values the cache holds.
engine::CapturePolicy cachedStepPolicy()
{
    engine::CapturePolicy policy;
    policy.attention = engine::AttentionKeep::only({AttentionStep::KHeads, AttentionStep::KRotated,
                                                    AttentionStep::VHeads, AttentionStep::Weights});
    policy.layerTensors = false;
    policy.allLogits = false;
    return policy;
}

const engine::AttentionTrace& selfAttention(const engine::ModelTrace& trace, int layer)
{
    return trace.attentionBlock(layer, Block::MaskedSelf)->attention;
}

// A map's numbers and the mask that greys what is not computed yet, kept together: the heatmap's
// ResolvedMask refers to the AttentionMask it was built from.
struct MaskedValues {
    std::vector<float> values;
    engine::AttentionMask mask;
    std::optional<engine::ResolvedMask> resolved;
};

std::vector<std::string> tokenLabels(const KvCacheDecoding& d)
{
    std::vector<std::string> labels;
    for (const int id : d.ids)
        labels.push_back(d.model->tokenizer->displayToken(id));
    return labels;
}

Heatmap heatmapOf(std::shared_ptr<MaskedValues> m, int rows, int cols)
{
    m->resolved.emplace(m->mask, 1, rows, cols);
    Heatmap h;
    h.matrix.values = m->values.data();
    h.matrix.rows = rows;
    h.matrix.cols = cols;
    h.mask = std::shared_ptr<const engine::ResolvedMask>(m, &*m->resolved);
    h.owner = std::move(m);
    return h;
}

void checkStep(const KvCacheDecoding& d, int step, int layer)
{
    if (step < 0 || step >= static_cast<int>(d.steps.size()))
        throw engine::InputError("Step " + std::to_string(step) +
                                 " does not exist; the decoding has " +
                                 std::to_string(d.steps.size()) + " steps.");
    if (layer < 0 || layer >= d.model->model->config().decoderLayers)
        throw engine::InputError(
            "Layer " + std::to_string(layer) + " does not exist; the model has " +
            std::to_string(d.model->model->config().decoderLayers) + " decoder layers.");
}

} // namespace

std::int64_t KvCacheDecoding::tokensAfter(int step) const
{
    const KvCacheStep& s = steps.at(static_cast<std::size_t>(step));
    return s.firstPosition + s.tokensRead;
}

KvCacheDecoding decodeWithKvCache(std::shared_ptr<const io::LoadedModel> model,
                                  std::vector<int> source, std::vector<int> prompt, int newTokens,
                                  std::optional<std::uint64_t> maxMemory,
                                  const std::atomic<bool>* stop)
{
    const engine::TransformerModel& m = *model->model;
    const engine::ModelConfig& c = m.config();
    if (!c.hasDecoder())
        throw engine::InputError("An encoder-only model writes no text, so it keeps no KV cache.");
    if (newTokens < 1 || newTokens > c.maxLength)
        throw engine::InputError("Tokens to write: " + std::to_string(newTokens) +
                                 "; expected 1 to " + std::to_string(c.maxLength) +
                                 " (max_length).");
    if (prompt.empty())
        throw engine::InputError("The text is empty; the model needs at least one token to "
                                 "continue.");

    // Every step keeps its weights and the cache it read, and one more pass keeps all weights:
    // estimated before anything is computed (a 1B model's prefill of 1,024 tokens alone keeps
    // 2 GB of weights).
    const engine::AttentionDescription first =
        engine::attentionDescription(c, 0, Block::MaskedSelf);
    const std::uint64_t T = prompt.size() + static_cast<std::size_t>(newTokens);
    const std::uint64_t layers = static_cast<std::uint64_t>(c.decoderLayers);
    const std::uint64_t kept = 4 * layers *
        (2 * static_cast<std::uint64_t>(first.queryHeads) * T * T +
         static_cast<std::uint64_t>(first.keyValueHeads) *
             static_cast<std::uint64_t>(2 * first.queryKeySize + first.valueSize) * T *
             (static_cast<std::uint64_t>(newTokens) + 1));
    MemoryBudget::forThisMachine(maxMemory).check(kept, "Decoding with a KV cache");

    KvCacheDecoding d;
    d.model = model;
    d.source = source;
    d.promptLength = std::ssize(prompt);
    d.bytesPerToken = engine::kvCacheBytes(1, c.decoderLayers, first.keyValueHeads,
                                           first.queryKeySize, first.valueSize, 4);

    // The steps, one at a time so that `stop` is heard between them.
    engine::DecoderCache cache;
    std::vector<int> read;
    std::vector<int> next = prompt;
    const int vocabulary = model->tokenizer->size();
    for (int s = 0; s < newTokens && !(stop && *stop); ++s) {
        if (std::ssize(read) + std::ssize(next) > c.maxLength)
            break;
        const std::int64_t before = cache.tokens();
        auto trace = std::make_shared<const engine::ModelTrace>(
            m.forwardWithCache(engine::ModelInput{s == 0 ? source : std::vector<int>{}, {}, next},
                               cache, cachedStepPolicy()));
        read.insert(read.end(), next.begin(), next.end());
        const auto last = trace->logits.matrix({0}).row(trace->logits.dim(1) - 1);
        Eigen::Index best = 0;
        const float top = last.head(vocabulary).maxCoeff(&best);
        KvCacheStep step;
        step.firstPosition = before;
        step.tokensRead = std::ssize(next);
        step.chosen = static_cast<int>(best);
        step.probability =
            static_cast<float>(1.0 / (last.array() - top).cast<double>().exp().sum());
        step.multiplyAddsWithCache =
            engine::decoderMultiplyAdds(c, before, step.tokensRead, std::ssize(source));
        step.multiplyAddsWithout =
            engine::decoderMultiplyAdds(c, 0, before + step.tokensRead, std::ssize(source));
        step.cacheBytes = cache.tokens() * d.bytesPerToken;
        d.steps.push_back(step);
        d.traces.push_back(std::move(trace));
        if (c.eosTokenId && best == *c.eosTokenId)
            break;
        next = {static_cast<int>(best)};
    }
    d.ids = read;
    if (d.steps.empty())
        return d;

    // One pass over everything read, the way a model without a cache computes the last step.
    engine::CapturePolicy full = engine::CapturePolicy::attentionWeights();
    full.layerTensors = false;
    full.allLogits = true;
    const engine::ModelTrace all = m.forward(engine::ModelInput{source, {}, read}, full);
    for (std::size_t s = 0; s < d.steps.size(); ++s) {
        KvCacheStep& step = d.steps[s];
        double largest = 0;
        for (int L = 0; L < c.decoderLayers; ++L) {
            const engine::Tensor& rows = selfAttention(*d.traces[s], L).weights;
            const engine::Tensor& reference = selfAttention(all, L).weights;
            for (std::int64_t h = 0; h < rows.dim(1); ++h)
                for (std::int64_t i = 0; i < rows.dim(2); ++i)
                    for (std::int64_t j = 0; j < rows.dim(3); ++j)
                        largest = std::max<double>(
                            largest,
                            std::abs(rows.at({0, h, i, j}) -
                                     reference.at({0, h, step.firstPosition + i, j})));
        }
        const engine::Tensor& logits = d.traces[s]->logits;
        const std::int64_t row = step.firstPosition + step.tokensRead - 1;
        for (std::int64_t v = 0; v < logits.dim(2); ++v)
            largest = std::max<double>(
                largest,
                std::abs(logits.at({0, logits.dim(1) - 1, v}) - all.logits.at({0, row, v})));
        step.largestDifference = largest;
        d.largestDifference = std::max(d.largestDifference, largest);
    }
    return d;
}

Heatmap cachedKeysOrValues(const KvCacheDecoding& d, int step, int layer, int kvHead, bool values)
{
    checkStep(d, step, layer);
    const engine::AttentionTrace& t =
        selfAttention(*d.traces[static_cast<std::size_t>(step)], layer);
    const engine::Tensor& cached =
        values ? t.vHeads : (t.description.rotary ? t.kRotated : t.kHeads);
    if (kvHead < 0 || kvHead >= cached.dim(1))
        throw engine::InputError("K/V head " + std::to_string(kvHead) +
                                 " does not exist; the block has " + std::to_string(cached.dim(1)) +
                                 ".");
    const int tokens = static_cast<int>(d.ids.size());
    const int read = static_cast<int>(cached.dim(2));
    const int features = static_cast<int>(cached.dim(3));
    auto m = std::make_shared<MaskedValues>();
    m->values.assign(static_cast<std::size_t>(features) * tokens, 0.0f);
    const engine::ConstMatrixView head = cached.matrix({0, kvHead});
    for (int j = 0; j < read; ++j)
        for (int f = 0; f < features; ++f)
            m->values[static_cast<std::size_t>(f) * tokens + j] = head(j, f);
    m->mask.validLengths = engine::AttentionMask::ValidLengths{{read}, false};
    Heatmap h = heatmapOf(std::move(m), features, tokens);
    h.matrix.rowAxis = values ? "d_v" : "d_k";
    h.matrix.columnAxis = "key";
    for (int f = 0; f < features; ++f)
        h.matrix.rowLabels.push_back(std::to_string(f));
    h.matrix.columnLabels = tokenLabels(d);
    const std::string what =
        values ? "cached V" : (t.description.rotary ? "cached K (turned)" : "cached K");
    h.caption = what + " · K/V head " + std::to_string(kvHead);
    h.title = "layer " + std::to_string(layer) + " · " + h.caption;
    h.scale = ColourScale::Diverging;
    return h;
}

Heatmap weightsSoFar(const KvCacheDecoding& d, int step, int layer, int head)
{
    checkStep(d, step, layer);
    const engine::AttentionDescription description =
        engine::attentionDescription(d.model->model->config(), layer, Block::MaskedSelf);
    if (head < 0 || head >= description.queryHeads)
        throw engine::InputError("Head " + std::to_string(head) +
                                 " does not exist; the block has " +
                                 std::to_string(description.queryHeads) + ".");
    const int tokens = static_cast<int>(d.ids.size());
    auto m = std::make_shared<MaskedValues>();
    m->values.assign(static_cast<std::size_t>(tokens) * tokens, 0.0f);
    for (int s = 0; s <= step; ++s) {
        const engine::Tensor& w =
            selfAttention(*d.traces[static_cast<std::size_t>(s)], layer).weights;
        const std::int64_t first = d.steps[static_cast<std::size_t>(s)].firstPosition;
        for (std::int64_t i = 0; i < w.dim(2); ++i)
            for (std::int64_t j = 0; j < w.dim(3); ++j)
                m->values[static_cast<std::size_t>((first + i) * tokens + j)] =
                    w.at({0, head, i, j});
    }
    // Rows not computed yet are blocked whole; the block's own causal mask and window do the rest.
    const std::int64_t read = d.tokensAfter(step);
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(tokens));
    for (int i = 0; i < tokens; ++i)
        lengths[static_cast<std::size_t>(i)] = i < read ? tokens : 0;
    m->mask = engine::AttentionMask{}.combinedWith(description.mask.causal,
                                                   description.mask.slidingWindow);
    m->mask.validLengths = engine::AttentionMask::ValidLengths{std::move(lengths), true};
    Heatmap h = heatmapOf(std::move(m), tokens, tokens);
    h.matrix.rowAxis = "query";
    h.matrix.columnAxis = "key";
    h.matrix.rowLabels = tokenLabels(d);
    h.matrix.columnLabels = h.matrix.rowLabels;
    h.caption = "head " + std::to_string(head) + " · weights";
    h.title = "layer " + std::to_string(layer) + " · " + h.caption;
    h.scale = ColourScale::Sequential;
    h.head = head;
    return h;
}

} // namespace attnviz::lesson
