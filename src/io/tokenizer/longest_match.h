#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::io {

/// For every byte of a text, the longest of a fixed set of strings that starts there. Tokenizers
/// cut text greedily at the longest known piece (added tokens anywhere, WordPiece pieces within
/// a word); checking each candidate at each position costs positions × candidates × length, and
/// a file with many long strings sharing a prefix turns that into minutes. This is an
/// Aho–Corasick automaton over the reversed strings run over the reversed text: the strings that
/// end at a position of the reversed text are those that start there in the text, and the first
/// one on the automaton's suffix chain is the longest, so a whole text costs O(text + strings).
class LongestMatchFinder {
public:
    struct Match {
        std::uint32_t length = 0; ///< bytes; 0 when no string starts here
        int value = -1;
    };

    LongestMatchFinder() = default;
    /// (string, value) pairs; empty strings are ignored, and of equal strings the first is kept.
    explicit LongestMatchFinder(const std::vector<std::pair<std::string_view, int>>& strings);

    /// One entry per byte of `text`: the longest string starting at that byte, and its value.
    std::vector<Match> longestStartingAt(std::string_view text) const;

    bool empty() const { return m_states.size() <= 2; }

private:
    struct State {
        std::uint32_t firstEdge = 0; ///< into m_edges: transitions up to the next state's first
        std::int32_t failure = 0; ///< the state of the longest proper suffix in the automaton
        std::int32_t longestEnding = -1; ///< the first state on the suffix chain that ends a string
        std::uint32_t depth = 0;
        int value = -1; ///< set when a string ends here
    };
    struct Edge {
        unsigned char byte;
        std::int32_t target;
    };

    std::int32_t child(std::int32_t state, unsigned char byte) const;
    std::int32_t step(std::int32_t state, unsigned char byte) const;

    std::vector<State> m_states; ///< the root is state 0; the last only ends the edges
    std::vector<Edge> m_edges;
};

} // namespace attnviz::io
