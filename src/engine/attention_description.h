#pragma once

#include "engine/attention_weights.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::engine {

/// How rotary positions are stretched to read texts longer than a model was trained on, as
/// Hugging Face's `rope_scaling` describes it. Linear (Chen et al. 2023, "position
/// interpolation"): every pair turns `factor` times slower. Llama 3: pairs whose wavelength
/// 2π/frequency is longer than `originalContext / lowFrequencyFactor` turn `factor` times slower,
/// pairs shorter than `originalContext / highFrequencyFactor` keep their speed, and the pairs
/// between are blended smoothly; the scores of nearby tokens barely change.
struct RopeScaling {
    enum class Kind { Linear, Llama3 };
    Kind kind = Kind::Linear;
    double factor = 1.0;
    double lowFrequencyFactor = 1.0; ///< Llama 3 only
    double highFrequencyFactor = 4.0; ///< Llama 3 only
    double originalContext = 8192.0; ///< Llama 3's `original_max_position_embeddings`
    bool operator==(const RopeScaling&) const = default;
};

/// "linear", "llama3": Hugging Face's `rope_type`.
const char* ropeScalingName(RopeScaling::Kind kind);
/// A sentence saying why the scaling cannot be computed (a factor that is not a positive
/// number, Llama 3's frequency factors out of order), or empty when it can.
std::string ropeScalingProblem(const RopeScaling& scaling);

/// Rotary position embedding (RoPE, Su et al. 2021) as Hugging Face applies it: after the split,
/// the first `rotatedSize` features of every query and key head are turned by an angle that grows
/// with the token's position, pairing feature i with feature i + rotatedSize/2 (`rotate_half`).
/// Pair i turns by position · θ^(−2i/rotatedSize), so the score of a query and a key depends on
/// how far apart they are, not on where they are.
struct RotaryPositions {
    double theta = 10000.0; ///< the base (Hugging Face's `rope_theta`)
    int rotatedSize = 0; ///< how many features of a head turn (even); 0 = the whole head (Pqk)
    /// How a model trained on short texts was stretched to read longer ones; none when unset.
    std::optional<RopeScaling> scaling;
    bool operator==(const RotaryPositions&) const = default;

    /// The angle per position of each of the r/2 pairs of `rotatedSize` r: θ^(−2i/r), changed by
    /// the scaling, in double.
    std::vector<double> frequencies(int rotatedSize) const;
};

/// A bias added to the scores that depends only on how far apart a query and a key are: ALiBi
/// (Press et al. 2022), −slope_h · (position_q − position_k), one slope a query head. Models that
/// use it (BLOOM, MPT) need no position anywhere else.
struct ScoreBias {
    std::vector<float> slopes; ///< one per query head
    bool operator==(const ScoreBias&) const = default;

    /// ALiBi's own slopes for `heads` heads (Press et al. 2022, and BLOOM's code for a head
    /// count that is not a power of two): 2^(−8/n), 2^(−16/n), … for the largest power of two n
    /// at most `heads`, then every other slope of 2n for the heads beyond n.
    static ScoreBias geometric(int heads);
};

/// Queries and keys normalised before they meet (QK-norm; Dehghani et al. 2023): an RMSNorm of
/// each query and each key with a learned gain, so that no score can grow without bound. Qwen3
/// and Gemma 3 normalise each head's q and k after the split (and before rotary positions), one
/// gain of P values shared by every head; OLMo 2 normalises the whole projection before the
/// split, a gain of H·P values for q and H_kv·P for k. The gains are the module's weights
/// (AttentionWeights::qNorm, kNorm).
struct QueryKeyNorm {
    enum class Scope { PerHead, WholeProjection };
    Scope scope = Scope::PerHead;
    double epsilon = 1e-6; ///< added to the mean square before the square root
    /// Gemma's RMSNorm multiplies by (1 + w) rather than w, so a gain of zeros is the identity.
    bool unitOffset = false;
    bool operator==(const QueryKeyNorm&) const = default;
};

/// "per_head", "whole_projection": the case files' and the trace manifest's spelling.
const char* queryKeyNormScopeName(QueryKeyNorm::Scope scope);

/// The part of the mask that belongs to the module itself, whatever it reads: a decoder's causal
/// mask, and Mistral's sliding window. Valid lengths and a custom mask come with each input
/// (AttentionMask) and combine with it.
struct MaskPolicy {
    bool causal = false;
    /// Causal with a window of W keys: query i sees key j only when j ≤ i and i − j < W.
    std::optional<std::int64_t> slidingWindow;
    bool operator==(const MaskPolicy&) const = default;
};

/// Everything that makes one attention module differ from another, apart from its weights: how
/// many query heads and K/V heads, their sizes, whether q and k are normalised, what is done to
/// them by position, what the scores are multiplied by, whether they are capped, a bias added to
/// them, the mask the module always applies and whether each head has a learned sink. A module
/// is built from weights and this description (MultiHeadAttention), and every lesson, experiment
/// and question holds the module or its description: none rebuilds one from a head count.
///
/// Query head h reads K/V head ⌊h / (H / H_kv)⌋ (Hugging Face's `repeat_kv` order): H_kv = H is
/// the original multi-head attention, 1 < H_kv < H grouped-query attention (Llama 2 70B, Mistral),
/// H_kv = 1 multi-query attention.
struct AttentionDescription {
    int queryHeads = 1; ///< H
    int keyValueHeads = 1; ///< H_kv; divides H
    int queryKeySize = 0; ///< Pqk: the size of one query or key head
    int valueSize = 0; ///< Pv: the size of one value head
    std::optional<QueryKeyNorm> queryKeyNorm;
    std::optional<RotaryPositions> rotary;
    /// What the scores QKᵀ are multiplied by: 1/√Pqk when unset. Gemma's
    /// query_pre_attn_scalar^(−1/2); any positive number for the scaling experiment, which
    /// divides by a temperature (1: no scaling, as a model that folds the scale into W_q).
    std::optional<double> scoreScale;
    /// Gemma 2's soft-capping of the scaled scores: s ← c · tanh(s / c), so that no score passes
    /// ±c however large q · k grows (attn_logit_softcapping).
    std::optional<double> logitSoftCap;
    std::optional<ScoreBias> scoreBias;
    MaskPolicy mask;
    /// gpt-oss' learned sinks: each query head has a logit (AttentionWeights::sinks) that joins
    /// every row of its softmax as one more key and is dropped after it, so a row's weights sum
    /// to less than 1 and a head can attend to nothing.
    bool learnedSinks = false;
    /// FlashAttention's online softmax (Dao et al. 2022; Milakov & Gimelshein 2018): each query
    /// row's keys are read in tiles of this many keys, keeping a running maximum m and a running
    /// sum ℓ, so no row of scores is ever held whole. Unset: the softmax of whole rows. The
    /// weights and the context are the same either way (up to rounding); the pass with tiles also
    /// keeps m and ℓ after every tile (online_max, online_sum).
    std::optional<std::int64_t> onlineSoftmaxTile;

    bool operator==(const AttentionDescription&) const = default;

    /// Query heads that share one K/V head: H / H_kv.
    int groupSize() const { return keyValueHeads > 0 ? queryHeads / keyValueHeads : 0; }
    /// The K/V head that query head `h` reads.
    int keyValueHeadOf(int h) const { return h / groupSize(); }
    bool groupedKeyValues() const { return keyValueHeads != queryHeads; }
    /// The features of a head that rotary positions turn (0 without them).
    int rotatedSize() const;
    /// The factor in force: scoreScale, or 1/√Pqk.
    double scale() const;
    /// How many key tiles the online softmax reads for `keys` keys: ⌈keys / tile⌉ (0 without
    /// it).
    std::int64_t onlineSoftmaxTiles(std::int64_t keys) const;

    /// The description of the weights' module when it has `queryHeads` query heads and
    /// `keyValueHeads` K/V heads (0: as many as query heads): the head sizes are the weights' rows
    /// shared out. Throws InputError naming the weight that cannot be shared that way. Readers
    /// of files use it; the rest of the program copies a description it was given.
    static AttentionDescription fromWeights(const AttentionWeights& weights, int queryHeads,
                                            int keyValueHeads = 0);
};

/// Throws InputError with one sentence when the description cannot be a module (heads that do
/// not divide, an odd rotated size, a window without a causal mask, a slope per head missing, a
/// scale or a cap that is not a positive number, a norm's epsilon that is not, ...).
void checkDescription(const AttentionDescription& d);

/// The largest head count a description may have; far above any model, small enough that
/// products of sizes cannot overflow.
inline constexpr int kMaxAttentionHeads = 1 << 20;

/// The largest key tile of the online softmax: any row longer than this is read in several.
inline constexpr std::int64_t kMaxOnlineSoftmaxTile = (std::int64_t{1} << 31) - 1;

} // namespace attnviz::engine
