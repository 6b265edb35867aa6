#pragma once

namespace attnviz::lesson {

/// What the fields of the model and playground panels hold. The panels are built with these
/// bounds and a lesson file is read against them: a lesson holding more is refused with a
/// sentence naming the member, because a field given more cuts it down without a word (a
/// QLineEdit keeps its first maxLength units, a QSpinBox its maximum).

/// A model's text and target, in UTF-16 units as a QLineEdit counts (its default maxLength).
inline constexpr int kMaxModelTextLength = 32767;
/// A picture file's path in a lesson (PATH_MAX on Linux).
inline constexpr int kMaxPicturePathLength = 4096;
/// The tokens a decoder-only model continues a text by.
inline constexpr int kMaxGenerate = 256;
/// The playground's valid lengths as typed ("3, 2" or "[[1, 3], [2, 4]]").
inline constexpr int kMaxValidLengthsLength = 400;

/// The sizes typed into the playground: wider than checkSettings allows, so that a size just
/// above its limit is shown and explained under its field rather than held back by the box.
inline constexpr int kMaxSizeField = 4096; ///< D, d_k, d_v, the output width
inline constexpr int kMaxHeadsField = 128; ///< H and the K/V heads
inline constexpr int kMaxWindowField = 256; ///< the sliding window
inline constexpr int kMaxSeed = 2147483647; ///< a QSpinBox holds an int
inline constexpr double kMinRopeTheta = 2;
inline constexpr double kMaxRopeTheta = 1e9;
inline constexpr double kMaxScoreScale = 1000; ///< what QKᵀ is multiplied by
inline constexpr int kScoreScaleDecimals = 6; ///< the decimals its field shows
inline constexpr double kMaxSoftCap = 10000; ///< the cap of the scores
inline constexpr int kSoftCapDecimals = 4;

} // namespace attnviz::lesson
