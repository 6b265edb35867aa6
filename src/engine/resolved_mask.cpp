#include "engine/resolved_mask.h"

#include "engine/input_error.h"

#include <algorithm>
#include <string>

namespace attnviz::engine {
namespace {

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

} // namespace

void checkSlidingWindow(bool causal, std::optional<std::int64_t> window)
{
    if (!window)
        return;
    if (!causal)
        throw InputError("a sliding window needs a causal mask; it limits how far back a query "
                         "may look");
    if (*window < 1)
        throw InputError("sliding_window is " + str(*window) +
                         "; expected a positive number of keys");
}

ResolvedMask::ResolvedMask(const AttentionMask& mask, std::int64_t batch, std::int64_t queries,
                           std::int64_t keys)
    : m_mask(mask)
    , m_queries(queries)
    , m_keys(keys)
{
    if (mask.validLengths) {
        const auto& v = *mask.validLengths;
        const std::int64_t expected = v.perQuery ? batch * queries : batch;
        if (static_cast<std::int64_t>(v.lengths.size()) != expected)
            throw InputError("valid_lens holds " +
                             str(static_cast<std::int64_t>(v.lengths.size())) +
                             " lengths; expected " + str(expected) +
                             (v.perQuery ? " (one per batch item and query, [B, Nq])"
                                         : " (one per batch item, [B])"));
        for (std::size_t k = 0; k < v.lengths.size(); ++k) {
            if (v.lengths[k] < 0) {
                const auto i = static_cast<std::int64_t>(k);
                const std::string at = v.perQuery
                    ? "[" + str(i / queries) + ", " + str(i % queries) + "]"
                    : "[" + str(i) + "]";
                throw InputError("valid_lens" + at + " is " + str(v.lengths[k]) +
                                 "; a valid length must be 0 or more");
            }
        }
    }
    checkSlidingWindow(mask.causal, mask.window);
    if (mask.queryOffset < 0 || mask.queryOffset > keys)
        throw InputError("the queries start at key " + str(mask.queryOffset) + "; expected 0 to " +
                         str(keys) + ", the number of keys");
    if (mask.explicitMask) {
        const auto& e = *mask.explicitMask;
        const std::int64_t expected = (e.perBatch ? batch : 1) * queries * keys;
        if (static_cast<std::int64_t>(e.allowed.size()) != expected)
            throw InputError("mask holds " + str(static_cast<std::int64_t>(e.allowed.size())) +
                             " values; expected " + str(expected) +
                             (e.perBatch ? " ([B, Nq, Nk])" : " ([Nq, Nk])"));
    }
}

ResolvedMask::Row ResolvedMask::row(std::int64_t b, std::int64_t i) const
{
    std::int64_t limit = m_keys;
    std::int64_t start = 0;
    const std::int64_t at = i + m_mask.queryOffset; // the query's own key
    if (m_mask.causal)
        limit = std::min(limit, at + 1);
    if (m_mask.window)
        start = std::clamp<std::int64_t>(at - *m_mask.window + 1, 0, m_keys);
    if (m_mask.validLengths) {
        const auto& v = *m_mask.validLengths;
        limit = std::min(limit,
                         v.lengths[static_cast<std::size_t>(v.perQuery ? b * m_queries + i : b)]);
    }
    const std::uint8_t* allowed = nullptr;
    if (m_mask.explicitMask) {
        const auto& e = *m_mask.explicitMask;
        allowed = e.allowed.data() + ((e.perBatch ? b * m_queries : 0) + i) * m_keys;
    }
    return {start, limit, allowed};
}

bool ResolvedMask::blocked(std::int64_t b, std::int64_t i, std::int64_t j) const
{
    return row(b, i).blocks(j);
}

bool ResolvedMask::rowFullyBlocked(std::int64_t b, std::int64_t i) const
{
    const Row r = row(b, i);
    if (r.limit <= r.start)
        return true;
    if (!r.allowed)
        return false;
    return std::none_of(r.allowed + r.start, r.allowed + r.limit,
                        [](std::uint8_t a) { return a != 0; });
}

} // namespace attnviz::engine
