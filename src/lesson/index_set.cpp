#include "lesson/index_set.h"

#include <algorithm>

namespace attnviz::lesson {

void IndexSet::add(std::int64_t from, std::int64_t to)
{
    m_ranges.emplace_back(from, to);
}

bool IndexSet::contains(std::int64_t index) const
{
    return isAll() || std::any_of(m_ranges.begin(), m_ranges.end(), [&](const auto& r) {
               return index >= r.first && index <= r.second;
           });
}

std::optional<std::int64_t> IndexSet::firstAtOrAbove(std::int64_t count) const
{
    std::optional<std::int64_t> first;
    for (const auto& [from, to] : m_ranges)
        if (to >= count) {
            const std::int64_t candidate = std::max(from, count);
            first = first ? std::min(*first, candidate) : candidate;
        }
    return first;
}

std::vector<int> IndexSet::within(int count) const
{
    std::vector<int> out;
    for (int i = 0; i < count; ++i)
        if (contains(i))
            out.push_back(i);
    return out;
}

} // namespace attnviz::lesson
