#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnviz::engine {

/// Which keys each query may attend to. The three kinds combine: a key is blocked as soon as any
/// of them blocks it, and a blocked score becomes −∞ before the softmax.
struct AttentionMask {
    /// Key j is blocked for query i when j > i (positions count from the start of both sequences).
    bool causal = false;
    /// With `causal`: key j is also blocked when i − j ≥ window (Mistral's sliding window).
    std::optional<std::int64_t> window;
    /// Where the queries sit among the keys for `causal` and `window`: query i is key
    /// i + queryOffset. 0 when queries and keys are the same tokens; a decoding step with a KV
    /// cache has its new tokens after the n cached ones, and offset n.
    std::int64_t queryOffset = 0;

    /// D2L's valid lengths: key j is blocked when j ≥ length. One length per batch item
    /// (`[B]`), or one per query (`[B, Nq]`, row-major) when `perQuery` is set.
    struct ValidLengths {
        std::vector<std::int64_t> lengths;
        bool perQuery = false;
    };
    std::optional<ValidLengths> validLengths;

    /// An explicit mask, 1 = may attend, 0 = blocked: `[Nq, Nk]` shared by the batch, or
    /// `[B, Nq, Nk]` when `perBatch` is set.
    struct Explicit {
        std::vector<std::uint8_t> allowed;
        bool perBatch = false;
    };
    std::optional<Explicit> explicitMask;

    bool any() const { return causal || validLengths || explicitMask; }

    /// This mask with a module's own policy added (a decoder's causal mask, a sliding window):
    /// a key is blocked when either blocks it.
    AttentionMask combinedWith(bool policyCausal, std::optional<std::int64_t> policyWindow) const
    {
        AttentionMask out = *this;
        out.causal = causal || policyCausal;
        if (policyWindow)
            out.window = window ? std::min(*window, *policyWindow) : *policyWindow;
        return out;
    }
};

} // namespace attnviz::engine
