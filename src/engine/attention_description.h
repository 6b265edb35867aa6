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

/// A bias added to the scaled scores that depends only on how far apart a query and a key are:
/// ALiBi (Press et al. 2022), −slope_h · (position_q − position_k), one slope a query head.
/// Models that use it need no position anywhere else.
struct ScoreBias {
    std::vector<float> slopes; ///< one per query head
    bool operator==(const ScoreBias&) const = default;
};

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
/// many query heads and K/V heads, their sizes, what is done to q and k by position, what the
/// scores are divided by, a bias added to them and the mask the module always applies. A module
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
    std::optional<RotaryPositions> rotary;
    /// What the scaled dot product divides by: √Pqk when unset; any positive number for the
    /// scaling experiment (1: no scaling, as a model that folds the scale into W_q).
    std::optional<float> scoreDivisor;
    std::optional<ScoreBias> scoreBias;
    MaskPolicy mask;
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
    /// The divisor in force: scoreDivisor, or √Pqk.
    float divisor() const;
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
/// divisor that is not a positive number, ...).
void checkDescription(const AttentionDescription& d);

/// The largest head count a description may have; far above any model, small enough that
/// products of sizes cannot overflow.
inline constexpr int kMaxAttentionHeads = 1 << 20;

/// The largest key tile of the online softmax: any row longer than this is read in several.
inline constexpr std::int64_t kMaxOnlineSoftmaxTile = (std::int64_t{1} << 31) - 1;

} // namespace attnviz::engine
