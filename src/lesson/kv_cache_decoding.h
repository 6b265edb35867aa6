#pragma once

#include "engine/greedy_decoder.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/heatmap.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// One step of decoding with a KV cache: which tokens it read, what it chose, what it cost and
/// how far its numbers are from the full causal pass.
struct KvCacheStep {
    std::int64_t firstPosition = 0; ///< where the tokens it read start (0: the prefill)
    std::int64_t tokensRead = 0; ///< the whole prompt at the prefill, one token after it
    int chosen = 0;
    float probability = 0;
    /// Multiply-adds of this step (engine::decoderMultiplyAdds): with the cache, and as a model
    /// without one would spend them, reading every token again.
    std::int64_t multiplyAddsWithCache = 0;
    std::int64_t multiplyAddsWithout = 0;
    /// The model's cache after the step, float32 keys and values (engine::kvCacheBytes).
    std::int64_t cacheBytes = 0;
    /// The largest |cached − full| over the step's rows of attention weights (every layer and
    /// head) and its row of logits, against one pass over all the tokens read.
    double largestDifference = 0;
};

/// Lesson 3 of today's attention: a model continues its text token by token with a KV cache
/// (engine::decodeGreedilyWithCache), each step a trace of its own — one new query row, one new
/// key and value column in every layer — beside one full causal pass over the same tokens.
struct KvCacheDecoding {
    std::shared_ptr<const io::LoadedModel> model;
    std::vector<int> source; ///< the encoder's input (encoder-decoder models)
    std::vector<int> ids; ///< every token the decoder read, in order: the prompt, then choices
    std::int64_t promptLength = 0;
    std::vector<KvCacheStep> steps;
    /// Step s's trace: the decoder's attention over the tokens read so far, with the weights,
    /// keys and values of every self-attention block.
    std::vector<std::shared_ptr<const engine::ModelTrace>> traces;
    double largestDifference = 0; ///< over every step
    std::int64_t bytesPerToken = 0; ///< the cache's growth per token, float32

    /// How many tokens the decoder has read after step s.
    std::int64_t tokensAfter(int step) const;
};

/// Decodes `newTokens` tokens after `prompt` (an encoder-decoder model reads `source` first and
/// starts from its start token), with a cache and, to compare, with one full pass over what was
/// read; it stops early at the end token or at max_length. `stop`, when set, ends the decoding
/// between steps (the steps so far are kept). Throws engine::InputError when the prompt is empty
/// or too long, newTokens is outside 1 to the model's max_length, or what the steps keep would
/// pass MemoryBudget with `maxMemory` (checked before computing anything).
KvCacheDecoding decodeWithKvCache(std::shared_ptr<const io::LoadedModel> model,
                                  std::vector<int> source, std::vector<int> prompt, int newTokens,
                                  std::optional<std::uint64_t> maxMemory = {},
                                  const std::atomic<bool>* stop = nullptr);

/// What the cache holds after step `step` in layer `layer`'s masked self-attention, for the K/V
/// head `kvHead`, drawn with the tokens as columns so that each step adds one: the keys as the
/// scores read them (`values` false; turned by position with rotary positions) or the values,
/// features down. Columns of tokens not yet read are blocked (grey): the map keeps its size
/// while the cache fills it.
Heatmap cachedKeysOrValues(const KvCacheDecoding& decoding, int step, int layer, int kvHead,
                           bool values);

/// The attention weights of query head `head` in layer `layer`, rows as the steps up to `step`
/// computed them (the prefill's rows, then one row a step), over every token the whole decoding
/// read; later rows and blocked keys are grey.
Heatmap weightsSoFar(const KvCacheDecoding& decoding, int step, int layer, int head);

} // namespace attnviz::lesson
