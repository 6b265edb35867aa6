#pragma once

#include "engine/attention_trace.h"
#include "engine/tensor.h"

#include <cstdint>
#include <vector>

namespace attnviz::engine {

/// What one causal self-attention block keeps of the tokens it has read, so that the next token
/// needs its own projections only (decoding with a KV cache): one row a token, appended step by
/// step and never changed. A real cache holds the keys as the scores read them and the values;
/// this one holds every key-side step (k_proj, v_proj, k_heads, v_heads and, as the module has
/// them, k_normed and k_rotated), so that a step's trace shows every key and value it reads; the
/// cache's size in bytes is counted from the shapes (kvCacheBytes), not from this struct.
struct KeyValueCache {
    /// The key-side steps of every token read (isKeySide), each with all of them on its key
    /// axis; the other steps are empty.
    AttentionTrace keys;

    std::int64_t tokens() const { return keys.kProj.rank() ? keys.kProj.dim(1) : 0; }
};

/// Whether a step belongs to the keys and values alone (its axes have a key axis and no query
/// axis): what a KV cache keeps.
bool isKeySide(AttentionStep step);

/// What decoding with a cache keeps between the steps of a model: the cache of each decoder
/// layer's masked self-attention, and for an encoder-decoder model the encoder's output, which
/// every step's cross-attention reads.
struct DecoderCache {
    std::vector<KeyValueCache> layers;
    Tensor memory; ///< [1, source token, D]; empty for a decoder-only model

    /// How many tokens the decoder has read (the position of the next one).
    std::int64_t tokens() const { return layers.empty() ? 0 : layers.front().tokens(); }
};

/// Bytes a cache of keys and values takes in a model (2 · layers · H_kv · d · bytes per token,
/// keys and values alike sized d_k and d_v): what a real cache stores, the turned keys and the
/// values, at `bytesPerValue` bytes each (4 for float32, 2 for bfloat16).
std::int64_t kvCacheBytes(std::int64_t tokens, std::int64_t layers, std::int64_t keyValueHeads,
                          std::int64_t keySize, std::int64_t valueSize, int bytesPerValue);

} // namespace attnviz::engine
