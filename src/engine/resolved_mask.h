#pragma once

#include "engine/attention_mask.h"

#include <cstdint>
#include <optional>

namespace attnviz::engine {

/// Throws InputError unless a sliding window (when there is one) has at least one key and comes
/// with a causal mask: the module's own policy and a call's mask are checked alike.
void checkSlidingWindow(bool causal, std::optional<std::int64_t> window);

/// An AttentionMask checked against concrete sizes and ready for the softmax pass: for each
/// (batch, query) row it says which run of keys the causal, window and length masks allow, and
/// where the explicit mask's bytes for that row are.
class ResolvedMask {
public:
    /// Throws InputError when the mask does not fit `[batch, queries, keys]`.
    ResolvedMask(const AttentionMask& mask, std::int64_t batch, std::int64_t queries,
                 std::int64_t keys);
    /// The resolved mask refers to the mask: a temporary would be gone before the pass reads it.
    ResolvedMask(AttentionMask&&, std::int64_t, std::int64_t, std::int64_t) = delete;

    struct Row {
        std::int64_t start; ///< keys [0, start) are blocked (a sliding window)
        std::int64_t limit; ///< keys [limit, Nk) are blocked
        const std::uint8_t* allowed; ///< explicit mask for keys [0, Nk), or null
        bool blocks(std::int64_t j) const
        {
            return j < start || j >= limit || (allowed && allowed[j] == 0);
        }
    };
    Row row(std::int64_t b, std::int64_t i) const;

    bool blocked(std::int64_t b, std::int64_t i, std::int64_t j) const;
    bool rowFullyBlocked(std::int64_t b, std::int64_t i) const;

private:
    const AttentionMask& m_mask;
    std::int64_t m_queries = 0;
    std::int64_t m_keys = 0;
};

} // namespace attnviz::engine
