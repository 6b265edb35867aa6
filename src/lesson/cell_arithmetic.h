#pragma once

#include "engine/online_softmax.h"
#include "lesson/walkthrough.h"

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace attnviz::lesson {

/// Where a cell sits in a walkthrough's trace: one head of one batch item, a query row and a
/// column (a key on the score-shaped steps, a feature of d_v on the context step).
struct CellAddress {
    int batch = 0;
    int head = 0;
    int query = 0;
    int column = 0;
};

/// The whole arithmetic behind one cell of the scores, the scaled, capped, biased and masked
/// scores and the weights: q_i · k_j term by term (the queries and keys as the scores read them:
/// normalised and turned when the module does that, the K/V head of the query head's group), the
/// module's scale, its cap and bias, the row after masking, exp with the row's maximum subtracted
/// (the sink's logit joining the row when the head has one), the row sum and the division. The
/// trace's own values are carried beside the recomputed terms, so a view shows the numbers the
/// engine produced and the terms that explain them; the terms are summed in double and agree
/// with the trace to float rounding.
struct ScoreCellArithmetic {
    CellAddress cell;
    int keyValueHead = 0; ///< the K/V head query head `cell.head` reads
    engine::AttentionStep queryStep = engine::AttentionStep::QHeads; ///< what q_i is taken from
    engine::AttentionStep keyStep = engine::AttentionStep::KHeads; ///< and k_j
    std::vector<float> query; ///< q_i of this head, d_k values
    std::vector<float> key; ///< k_j of its K/V head
    std::vector<double> products; ///< q_i[t] · k_j[t]
    double productSum = 0; ///< Σ products
    float score = 0; ///< the trace's Q_h K_gᵀ at (i, j)
    double scale = 0; ///< what the score is multiplied by: 1/√d_k, or the module's own number
    float scaled = 0; ///< the trace's score · scale
    std::optional<double> cap; ///< soft-capping's c, when the module caps its scores
    float capped = 0; ///< the trace's c · tanh(scaled / c)
    std::optional<double> bias; ///< a score bias's −slope_h · (p_i − p_j), when the module has one
    float biased = 0; ///< the trace's score with the bias added
    bool blocked = false; ///< the mask blocks key j for query i
    std::vector<float> maskedRow; ///< the trace's masked row i (−∞ where blocked)
    bool rowFullyMasked = false; ///< every key blocked: the weights are all zero, not NaN
    std::optional<float> sink; ///< the head's learned sink logit, when it has one
    float rowMax = 0; ///< the largest unblocked masked score, or the sink (subtracted before exp)
    std::vector<double> exps; ///< exp(masked − rowMax), 0 where blocked
    double sinkExp = 0; ///< exp(sink − rowMax), the sink's share of the row sum
    double expSum = 0; ///< Σ exps (+ sinkExp)
    float weight = 0; ///< the trace's softmax weight at (i, j)
    float sinkWeight = 0; ///< the trace's weight on the sink (0 without one)
    std::vector<float> weightRow; ///< the trace's weights of row i
};

/// One cell of the context: query i's weights times column c of V_g (g the query head's K/V
/// head), summed over the keys.
struct ContextCellArithmetic {
    CellAddress cell;
    int keyValueHead = 0;
    std::vector<float> weights; ///< the trace's weights of row i, one per key
    std::vector<float> values; ///< column c of V_h, one per key
    std::vector<double> products; ///< weight · value per key
    double productSum = 0;
    float context = 0; ///< the trace's context at (i, c)
};

/// One cell of online_max or online_sum (query i after tile t): the online softmax of row i
/// replayed tile by tile up to t by the engine (engine::onlineSoftmaxOfRow), the scores of tile t,
/// and, to show where the row ends, its last tile and the trace's context row.
struct OnlineCellArithmetic {
    CellAddress cell; ///< column: the tile
    std::vector<engine::OnlineSoftmaxTile> tiles; ///< every tile of the row, in order
    std::vector<float> tileScores; ///< the trace's masked scores of tile `cell.column`
    std::vector<double> tileExps; ///< exp(s − m) of those scores with m after the tile, 0 blocked
    double tileExpSum = 0; ///< Σ tileExps: what the tile adds to the rescaled ℓ
    float max = 0; ///< the trace's online_max at the cell
    float sum = 0; ///< the trace's online_sum at the cell
    std::vector<double> outputOverSum; ///< o / ℓ after the last tile (0 for a fully blocked row)
    std::vector<float> context; ///< the trace's context row, which o / ℓ becomes
};

/// Why a cell's arithmetic cannot be shown: a sentence for the window.
struct CellArithmeticUnavailable {
    std::string reason;
};

using CellArithmetic = std::variant<ScoreCellArithmetic, ContextCellArithmetic,
                                    OnlineCellArithmetic, CellArithmeticUnavailable>;

/// The arithmetic of `cell` on `step`: score-shaped steps give ScoreCellArithmetic, the context
/// gives ContextCellArithmetic, online_max and online_sum give OnlineCellArithmetic. Any other
/// step, a cell outside the trace, or a trace that did not keep the intermediates needed (an
/// import, a large model run) gives the reason instead.
CellArithmetic cellArithmetic(const Walkthrough& w, engine::AttentionStep step,
                              const CellAddress& cell);

/// The indices of a row's `count` largest entries, largest first, always including `keep`
/// (a long row is shown by its largest weights and the cell asked about).
std::vector<std::size_t> largestEntries(const std::vector<float>& row, std::size_t count,
                                        std::size_t keep);

} // namespace attnviz::lesson
