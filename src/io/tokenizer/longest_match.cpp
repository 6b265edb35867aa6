#include "io/tokenizer/longest_match.h"

#include <algorithm>

namespace attnviz::io {

LongestMatchFinder::LongestMatchFinder(const std::vector<std::pair<std::string_view, int>>& strings)
{
    // pass 1: a trie of the reversed strings; while it grows, a state's transitions are a list
    // threaded through its children (first child, next sibling), 9 bytes a state rather than a
    // container each, since a state is made for every byte of the strings
    std::vector<std::int32_t> firstChild(1, -1), nextSibling(1, -1);
    std::vector<unsigned char> byteInto(1, 0);
    std::vector<int> values(1, -1);
    for (const auto& [text, value] : strings) {
        if (text.empty())
            continue;
        std::int32_t state = 0;
        for (auto it = text.rbegin(); it != text.rend(); ++it) {
            const auto byte = static_cast<unsigned char>(*it);
            std::int32_t c = firstChild[static_cast<std::size_t>(state)];
            while (c >= 0 && byteInto[static_cast<std::size_t>(c)] != byte)
                c = nextSibling[static_cast<std::size_t>(c)];
            if (c < 0) {
                c = static_cast<std::int32_t>(values.size());
                nextSibling.push_back(firstChild[static_cast<std::size_t>(state)]);
                firstChild[static_cast<std::size_t>(state)] = c;
                firstChild.push_back(-1);
                byteInto.push_back(byte);
                values.push_back(-1);
            }
            state = c;
        }
        if (values[static_cast<std::size_t>(state)] < 0)
            values[static_cast<std::size_t>(state)] = value;
    }

    // pass 2: the transitions laid out state by state, sorted so that a step is a binary search
    m_states.resize(values.size() + 1); // one past the last, so every state's edges end somewhere
    m_edges.reserve(values.size() - 1);
    for (std::size_t s = 0; s < values.size(); ++s) {
        m_states[s].firstEdge = static_cast<std::uint32_t>(m_edges.size());
        m_states[s].value = values[s];
        for (std::int32_t c = firstChild[s]; c >= 0; c = nextSibling[static_cast<std::size_t>(c)])
            m_edges.push_back({byteInto[static_cast<std::size_t>(c)], c});
        std::sort(m_edges.begin() + m_states[s].firstEdge, m_edges.end(),
                  [](const Edge& a, const Edge& b) { return a.byte < b.byte; });
    }
    m_states.back().firstEdge = static_cast<std::uint32_t>(m_edges.size());

    // pass 3: failure links breadth first, so a state's suffixes are done before it
    std::vector<std::int32_t> queue{0};
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::int32_t state = queue[head];
        const auto s = static_cast<std::size_t>(state);
        for (std::uint32_t e = m_states[s].firstEdge; e < m_states[s + 1].firstEdge; ++e) {
            const auto [byte, target] = m_edges[e];
            State& t = m_states[static_cast<std::size_t>(target)];
            t.depth = m_states[s].depth + 1;
            t.failure = state == 0 ? 0 : step(m_states[s].failure, byte);
            t.longestEnding =
                t.value >= 0 ? target : m_states[static_cast<std::size_t>(t.failure)].longestEnding;
            queue.push_back(target);
        }
    }
}

std::int32_t LongestMatchFinder::child(std::int32_t state, unsigned char byte) const
{
    const auto s = static_cast<std::size_t>(state);
    const auto first = m_edges.begin() + m_states[s].firstEdge;
    const auto last = m_edges.begin() + m_states[s + 1].firstEdge;
    const auto it = std::lower_bound(first, last, byte,
                                     [](const Edge& e, unsigned char b) { return e.byte < b; });
    return it != last && it->byte == byte ? it->target : -1;
}

std::int32_t LongestMatchFinder::step(std::int32_t state, unsigned char byte) const
{
    for (;;) {
        if (const std::int32_t next = child(state, byte); next >= 0)
            return next;
        if (state == 0)
            return 0;
        state = m_states[static_cast<std::size_t>(state)].failure;
    }
}

std::vector<LongestMatchFinder::Match> LongestMatchFinder::longestStartingAt(
    std::string_view text) const
{
    std::vector<Match> matches(text.size());
    if (empty())
        return matches;
    std::int32_t state = 0;
    for (std::size_t pos = text.size(); pos-- > 0;) {
        state = step(state, static_cast<unsigned char>(text[pos]));
        if (const std::int32_t ending = m_states[static_cast<std::size_t>(state)].longestEnding;
            ending >= 0) {
            const State& e = m_states[static_cast<std::size_t>(ending)];
            matches[pos] = {e.depth, e.value};
        }
    }
    return matches;
}

} // namespace attnviz::io
