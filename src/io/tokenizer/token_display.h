#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

// How tokens read on a heatmap's axis and in its tooltips (docs/tokenizers.md, "Display").

/// Bytes as people read them: UTF-8 characters as they are, a space as "␣", a newline as "↵", a
/// tab as "⇥", and other control characters and bytes that are no complete UTF-8 character as
/// "\xNN".
std::string displayBytes(std::string_view bytes);

/// Consecutive tokens whose bytes form whole characters only together (你 = E4 BD A0 cut into
/// E4 BD + A0 by a byte-level BPE, or into <0xE4><0xBD><0xA0> by byte fallback).
struct BytePieceGroup {
    std::size_t first = 0; ///< index of the group's first token
    std::size_t count = 1;
    std::string bytes; ///< the group's bytes, all its tokens' together
};

/// The groups of more than one token in a sequence, given each token's bytes (nullopt for a token
/// without bytes, such as a special token, which never joins a group), in order.
std::vector<BytePieceGroup> groupBytePieces(const std::vector<std::optional<std::string>>& bytes);

/// The mark a token of a group shows after the group's text: "·2/3" for the second of three.
std::string partMark(std::size_t index, std::size_t count);

} // namespace attnviz::io
