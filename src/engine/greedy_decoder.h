#pragma once

#include "engine/transformer_model.h"

#include <memory>
#include <vector>

namespace attnviz::engine {

/// One step of greedy decoding: the decoder's input, the token it chose next, and the whole
/// trace of that forward pass, so the step can be replayed and its masked self-attention shown
/// to see only earlier tokens.
struct DecodingStep {
    std::vector<int> input;
    int chosen = 0;
    float probability = 0; ///< softmax of the chosen token's logit
    std::shared_ptr<const ModelTrace> trace;
};

/// Greedy decoding: repeatedly run the model and append the most likely next token.
/// An encoder-decoder model reads `source` and starts its decoder from `prefix` (normally just
/// the start token); a decoder-only model continues `prefix`. Stops after `maxNewTokens`, at the
/// end token (which is kept as the last choice), or when the next input would exceed max_length.
/// Only ids 0 … `tokens` − 1 are chosen, the ones the tokenizer has: a vocabulary padded for
/// speed (nanoGPT's 50304 rows for GPT-2's 50257 tokens) has rows that name no token, as
/// Hugging Face's generate never picks them either. `tokens` is 1 to the model's vocab_size.
/// `policy` says what each step's trace keeps (the last position's logits are always there).
std::vector<DecodingStep> decodeGreedily(const TransformerModel& model,
                                         const std::vector<int>& source, std::vector<int> prefix,
                                         int maxNewTokens, int tokens,
                                         const CapturePolicy& policy = {},
                                         const Ablation& ablation = {});

/// The same decoding with a KV cache (TransformerModel::forwardWithCache): the first step reads
/// the whole prefix (the prefill), every later step only the token chosen before it, so step s's
/// trace has one query row and every key so far. The choices are decodeGreedily's up to float
/// rounding (the products of one row and of many rows may round differently).
std::vector<DecodingStep> decodeGreedilyWithCache(const TransformerModel& model,
                                                  const std::vector<int>& source,
                                                  std::vector<int> prefix, int maxNewTokens,
                                                  int tokens, const CapturePolicy& policy = {},
                                                  const Ablation& ablation = {});

/// The ids chosen by a run, without the end token.
std::vector<int> generatedIds(const TransformerModel& model,
                              const std::vector<DecodingStep>& steps);

} // namespace attnviz::engine
