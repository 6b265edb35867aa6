#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::lesson {

enum class MaskKind { None, Causal, ValidLengths, Custom };
/// How the module learns where tokens are: not at all, a sinusoidal encoding added to X (the
/// 2017 Transformer), q and k turned by position (rotary, as Llama and its successors), or a bias
/// on the scores that grows with distance (ALiBi, as BLOOM and MPT).
enum class PositionKind { None, Sinusoidal, Rotary, Alibi };
/// QK-norm: none, each head's q and k (Qwen3, Gemma 3), or the whole projection (OLMo 2).
enum class QueryKeyNormKind { None, PerHead, WholeProjection };
enum class TokenUnit { Word, Character };

/// What the user set for the random-weights playground: sentences, module shape, mask and seed.
/// Plain data, so the checks and the computation can be tested without a window.
struct PlaygroundSettings {
    std::vector<std::string> querySentences{"the cat sat on the mat"}; ///< one per batch item
    std::vector<std::string> keyValueSentences; ///< empty: self-attention
    TokenUnit tokenUnit = TokenUnit::Word;
    PositionKind positions = PositionKind::Sinusoidal;
    double ropeTheta = 10000; ///< θ of rotary positions
    /// The features of each head rotary positions turn (Phi-3's partial rotary); 0 = all of d_k.
    int rotaryDim = 0;
    QueryKeyNormKind queryKeyNorm = QueryKeyNormKind::None;
    bool queryKeyNormUnitOffset = false; ///< Gemma's gain (1 + w)
    /// What QKᵀ is multiplied by (Gemma's query_pre_attn_scalar^−½); 0 = 1/√d_k.
    double scoreScale = 0;
    /// Gemma 2's soft-capping of the scaled scores at ±c; 0 = none.
    double softCap = 0;
    bool learnedSinks = false; ///< a learned sink logit per head (gpt-oss)
    int modelWidth = 16; ///< D
    int heads = 4; ///< H
    int keyValueHeads = 0; ///< H_kv, dividing H (grouped-query attention); 0 = H
    int queryKeySize = 0; ///< Pqk (d_k); 0 = D / H
    int valueSize = 0; ///< Pv (d_v); 0 = D / H
    int outputWidth = 0; ///< Po; 0 = D
    bool bias = true;
    MaskKind mask = MaskKind::None;
    std::set<std::pair<int, int>> blockedCells; ///< (query, key) blocked by the custom mask
    /// The valid lengths as typed ("3, 2" or "[[1, 3], [2, 4]]", see parseValidLengths), used with
    /// MaskKind::ValidLengths; empty: each sentence's own length.
    std::string validLengths;
    /// With the causal mask: query i sees only the last W keys up to itself; 0 = no window.
    int slidingWindow = 0;
    /// The softmax computed online over key tiles of this many keys (FlashAttention); 0 = whole
    /// rows.
    int onlineSoftmaxTile = 0;
    /// Heads switched off (their concat columns zero); those ≥ heads are not applied.
    std::set<int> ablatedHeads;
    std::uint32_t seed = 42;

    bool operator==(const PlaygroundSettings&) const = default;
};

} // namespace attnviz::lesson
