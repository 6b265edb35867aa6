#pragma once

#include "engine/resolved_mask.h"
#include "io/labelled_matrix.h"
#include "io/tokenizer/tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::lesson {

/// How values map to colours: weights are non-negative (a sequential map), everything else is
/// signed (a diverging map centred on zero).
enum class ColourScale { Sequential, Diverging };

/// One matrix to show — on screen, in an exported image, in a handout: the numbers with their
/// labels, a title, the colour scale, which cells are blocked, and which head it belongs to.
/// Points into a walkthrough's trace, which `owner` keeps alive. Qt-free: the render layer turns
/// it into pixels and colours.
struct Heatmap {
    std::shared_ptr<const void> owner;
    io::LabelledMatrix matrix;
    /// A line about each row's and each column's token for tooltips (Walkthrough's
    /// queryTokenDetails); empty when the axis is not tokens or nothing more is known.
    std::vector<io::TokenDetail> rowDetails;
    std::vector<io::TokenDetail> columnDetails;
    /// Optional: the mask whose blocked cells are drawn as blocked (neutral grey, never a
    /// colour of the scale), for batch item `maskBatch`.
    std::shared_ptr<const engine::ResolvedMask> mask;
    int maskBatch = 0;
    /// Where this map's first row and column sit in the mask (a slice of tokens 100:140 starts
    /// at 100 in both).
    int maskRowOffset = 0;
    int maskColumnOffset = 0;
    std::string
        title; ///< the full title, as exports print it ("layer 1 · cross · head 2 · softmax")
    std::string caption; ///< what the matrix is, without where it sits ("softmax")
    ColourScale scale = ColourScale::Diverging;
    int head = -1; ///< the query head whose colour frames it, or −1 (also a shared K/V head)
    /// Column ranges owned by heads, drawn as coloured bands: (first column, count, head).
    struct Band {
        int first;
        int count;
        int head;
        /// 0: `head` is a query head. Otherwise `head` is a K/V head that this many query heads
        /// share (grouped-query attention), coloured as the first of them and labelled "KV".
        int sharedBy = 0;
    };
    std::vector<Band> columnBands;

    int rows() const { return matrix.rows; }
    int cols() const { return matrix.cols; }
    float value(int row, int col) const { return matrix.value(row, col); }
    bool blocked(int row, int col) const;
};

/// The word a WordPiece token belongs to when the word was cut into pieces ("play", "##ing" →
/// "playing" for either piece), so a tooltip can name it; nullopt for a whole-word token.
std::optional<std::string> wholeWord(const std::vector<std::string>& labels, int index);

/// One value per head of a model as a map, layers down and heads across ("layer L", "head H"),
/// `values` holding layers · heads values row by row; caption and scale are the caller's.
Heatmap layersByHeads(std::shared_ptr<const std::vector<float>> values, int layers, int heads);

/// A row's sum over its finite cells (a softmax row of weights sums to 1; a fully blocked row
/// to 0), in double: a view of 1024 rows labels a few dozen, and sums only those.
double rowSum(const Heatmap& map, int row);
/// Every row's sum, for the lines that show them all.
std::vector<double> rowSums(const Heatmap& map);

/// The colour range of a set of heatmaps: [0, max] for sequential, ±max|v| for diverging;
/// −∞ cells are ignored.
std::pair<double, double> colourRange(const std::vector<Heatmap>& maps);

} // namespace attnviz::lesson
