#pragma once

#include "engine/attention_mask.h"

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace attnviz::lesson {

/// The valid-lengths field of the playground, as D2L writes them: "3, 2" or "[3, 2]" (one length
/// per batch item), or "[[1, 3], [2, 4]]" / "1 3; 2 4" (one length per query of each item).
/// Returns the engine's mask part, or one sentence naming what is wrong and what was expected.
/// `itemKeys` holds the number of real keys of each batch item; a length may not exceed it (the
/// keys after it are padding, which no length can make real). `queries` is the padded number of
/// queries, which a per-query row must match.
std::variant<engine::AttentionMask::ValidLengths, std::string> parseValidLengths(
    const std::string& text, const std::vector<int>& itemKeys, std::size_t queries);

} // namespace attnviz::lesson
