#pragma once

#include "lesson/heatmap.h"
#include "lesson/walkthrough.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnviz::lesson {

/// One pair of features a rotary module turns together: feature i and feature i + r/2 of a head
/// (Hugging Face's rotate_half order), drawn as a 2-D vector for one query and one key.
struct RotaryPair {
    int index = 0; ///< i: features i and i + r/2
    double frequency = 0; ///< radians per position (θ^(−2i/r), stretched by rope scaling)
    double queryAngle = 0; ///< the query's position × frequency
    double keyAngle = 0;
    std::array<float, 2> query{}, queryTurned{}; ///< (q_i, q_{i+r/2}) before and after
    std::array<float, 2> key{}, keyTurned{};
    double product = 0; ///< queryTurned · keyTurned: this pair's share of the score
};

/// Rotary positions for one query and one key of a head, pair by pair, read from the engine's
/// trace (q_heads, q_rotated, k_heads, k_rotated) — with every position moved on by `shift`, from
/// the module run again at those positions: each vector turns further, the angle between a
/// query's and a key's pair stays, and so does their dot product, the score.
struct RotaryPairs {
    int head = 0;
    int keyValueHead = 0;
    int query = 0;
    int key = 0;
    std::int64_t queryPosition = 0; ///< with the shift
    std::int64_t keyPosition = 0;
    std::int64_t shift = 0;
    std::vector<RotaryPair> pairs;
    /// The features after the first r (partial rotary positions) pass unturned; their products.
    double unturned = 0;
    double score = 0; ///< the score the trace holds for (query, key), at these positions
    double unshiftedScore = 0; ///< the walkthrough's own score, at the positions it has
};

/// Nullopt when the walkthrough has no rotary positions or lacks the steps (an import), or when
/// `shift` is not 0 and the block cannot be run again (whyNotRecomputable) or is larger than
/// kMaxShiftCells. Throws engine::InputError for an index outside the trace.
std::optional<RotaryPairs> rotaryPairs(const Walkthrough& w, int batch, int head, int query,
                                       int key, std::int64_t shift);

/// The angle each pair of features turns by at each of the queries' positions (moved on by
/// `shift`), wrapped to (−π, π]: queries down, pairs across (pair 0 turns fastest, one radian a
/// position). Nullopt without rotary positions.
std::optional<Heatmap> rotaryAngles(const Walkthrough& w, int batch, std::int64_t shift = 0);

} // namespace attnviz::lesson
