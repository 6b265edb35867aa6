#pragma once

#include "lesson/walkthrough.h"

#include <cstdint>
#include <optional>

namespace attnviz::lesson {

/// The proof that rotary positions make a score depend only on how far apart a query and a key
/// are: the module is run again with every position moved on by `shift`, and the rotated queries
/// change while the scores do not (up to float rounding).
struct RotaryShift {
    std::int64_t shift = 0;
    double queryChange = 0; ///< the largest |Δ| of q_rotated: the vectors did turn
    double scoreChange = 0; ///< the largest |Δ| of the scores: their dot products did not change
    double largestScore = 0; ///< the largest |score|, the scale scoreChange is read against
};

/// The engine's numbers for `w` shifted by `shift`, or nullopt when the module has no rotary
/// positions, cannot be run again (whyNotRecomputable), or is too large to run again while a text
/// is shown (more than kMaxShiftCells score cells).
std::optional<RotaryShift> rotaryShift(const Walkthrough& w, std::int64_t shift);

/// Above this many score cells the shift is not computed for a step's text.
inline constexpr double kMaxShiftCells = 4e6;

/// `w`'s module run again over the same tokens with every position moved on by `shift`, keeping
/// `keep`: nullopt when the module has no rotary positions, cannot be run again
/// (whyNotRecomputable), has more than kMaxShiftCells score cells, or a position would pass
/// engine::kMaxPosition.
std::optional<engine::AttentionTrace> runShifted(const Walkthrough& w, std::int64_t shift,
                                                 const engine::AttentionKeep& keep);

} // namespace attnviz::lesson
