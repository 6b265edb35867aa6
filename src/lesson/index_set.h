#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::lesson {

/// A selection of layers or heads such as "0-3,7", kept as ranges: "0-2000000000" costs two
/// numbers, is checked against the real count without being expanded, and is expanded only
/// within that count.
class IndexSet {
public:
    /// Every index (no ranges given).
    IndexSet() = default;
    /// Adds [from, to]; from ≤ to.
    void add(std::int64_t from, std::int64_t to);

    bool isAll() const { return m_ranges.empty(); }
    bool contains(std::int64_t index) const;
    /// The first selected index ≥ count, if any (what a message names as not existing).
    std::optional<std::int64_t> firstAtOrAbove(std::int64_t count) const;
    /// The selected indices below `count`, in increasing order.
    std::vector<int> within(int count) const;

private:
    std::vector<std::pair<std::int64_t, std::int64_t>> m_ranges;
};

} // namespace attnviz::lesson
