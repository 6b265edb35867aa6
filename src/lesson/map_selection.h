#pragma once

#include "lesson/heatmap.h"

#include <optional>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// A range of tokens, [first, end), as --tokens 100:140 names it (Python's slice: the end is
/// not included; either side may be left out).
struct TokenRange {
    int first = 0;
    std::optional<int> end; ///< nullopt: to the last token
};

/// The rows and columns of `map` that stand for tokens (query and key axes), cut to `range`;
/// feature axes are kept whole. The labels and the blocked cells follow. Throws
/// engine::InputError when the range starts beyond the tokens there are.
Heatmap tokenSlice(const Heatmap& map, const TokenRange& range);

/// How maps of several heads or layers become one.
enum class Combine { None, Mean, Max };

/// The cell-by-cell mean or maximum of maps of one shape (heads of a block, or the same head
/// across layers), titled `title`. A blocked cell stays blocked; −∞ stays −∞.
Heatmap combinedMap(const std::vector<Heatmap>& maps, Combine how, std::string title,
                    std::string caption);

/// "mean" or "max".
std::string combineName(Combine how);

} // namespace attnviz::lesson
