#include "lesson/cell_arithmetic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;

std::vector<float> rowOf(const engine::Tensor& t, const CellAddress& c)
{
    const auto m = t.matrix({c.batch, c.head});
    const auto row = m.row(c.query);
    return {row.data(), row.data() + row.size()};
}

std::vector<float> columnOf(const engine::Tensor& t, const CellAddress& c, int column)
{
    const auto m = t.matrix({c.batch, c.head});
    std::vector<float> out(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        out[static_cast<std::size_t>(r)] = m(r, column);
    return out;
}

std::string missingSteps(const engine::AttentionTrace& trace,
                         std::initializer_list<AttentionStep> needed)
{
    std::string missing;
    for (AttentionStep s : needed)
        if (!trace.has(s))
            missing += (missing.empty() ? "" : ", ") + std::string(engine::stepName(s));
    return missing;
}

ScoreCellArithmetic scoreArithmetic(const engine::AttentionTrace& t, const CellAddress& c)
{
    ScoreCellArithmetic a;
    a.cell = c;
    const auto q = t.qHeads.matrix({c.batch, c.head}).row(c.query);
    const auto k = t.kHeads.matrix({c.batch, c.head}).row(c.column);
    a.query.assign(q.data(), q.data() + q.size());
    a.key.assign(k.data(), k.data() + k.size());
    for (std::size_t d = 0; d < a.query.size(); ++d)
        a.products.push_back(double(a.query[d]) * double(a.key[d]));
    a.productSum = std::accumulate(a.products.begin(), a.products.end(), 0.0);
    const std::initializer_list<std::int64_t> at = {c.batch, c.head, c.query, c.column};
    a.score = t.scores.at(at);
    a.divisor = std::sqrt(double(t.queryKeySize()));
    a.scaled = t.scaled.at(at);
    a.maskedRow = rowOf(t.masked, c);
    a.weightRow = rowOf(t.weights, c);
    a.weight = t.weights.at(at);
    a.blocked = std::isinf(a.maskedRow[static_cast<std::size_t>(c.column)]) &&
        a.maskedRow[static_cast<std::size_t>(c.column)] < 0;
    const auto open = [](float v) { return !(std::isinf(v) && v < 0); };
    a.rowFullyMasked = std::none_of(a.maskedRow.begin(), a.maskedRow.end(), open);
    a.exps.assign(a.maskedRow.size(), 0.0);
    if (a.rowFullyMasked)
        return a;
    a.rowMax = -std::numeric_limits<float>::infinity();
    for (float v : a.maskedRow)
        if (open(v))
            a.rowMax = std::max(a.rowMax, v);
    for (std::size_t j = 0; j < a.maskedRow.size(); ++j)
        if (open(a.maskedRow[j]))
            a.exps[j] = std::exp(double(a.maskedRow[j]) - double(a.rowMax));
    a.expSum = std::accumulate(a.exps.begin(), a.exps.end(), 0.0);
    return a;
}

ContextCellArithmetic contextArithmetic(const engine::AttentionTrace& t, const CellAddress& c)
{
    ContextCellArithmetic a;
    a.cell = c;
    a.weights = rowOf(t.weights, c);
    a.values = columnOf(t.vHeads, c, c.column);
    for (std::size_t j = 0; j < a.weights.size(); ++j)
        a.products.push_back(double(a.weights[j]) * double(a.values[j]));
    a.productSum = std::accumulate(a.products.begin(), a.products.end(), 0.0);
    a.context = t.context.at({c.batch, c.head, c.query, c.column});
    return a;
}

OnlineCellArithmetic onlineArithmetic(const engine::AttentionTrace& t, const CellAddress& c)
{
    OnlineCellArithmetic a;
    a.cell = c;
    a.tiles = engine::onlineSoftmaxOfRow(t, c.batch, c.head, c.query);
    const engine::OnlineSoftmaxTile& tile = a.tiles[static_cast<std::size_t>(c.column)];
    const std::vector<float> masked = rowOf(t.masked, c);
    a.tileScores.assign(masked.begin() + tile.firstKey,
                        masked.begin() + tile.firstKey + tile.keys);
    for (const float s : a.tileScores)
        a.tileExps.push_back(std::isinf(s) ? 0.0 : std::exp(double(s) - tile.max));
    a.tileExpSum = std::accumulate(a.tileExps.begin(), a.tileExps.end(), 0.0);
    const engine::OnlineSoftmaxTile& last = a.tiles.back();
    for (const double o : last.accumulated)
        a.outputOverSum.push_back(last.sum > 0 ? o / last.sum : 0.0);
    a.max = t.onlineMax.at({c.batch, c.head, c.query, c.column});
    a.sum = t.onlineSum.at({c.batch, c.head, c.query, c.column});
    a.context = rowOf(t.context, c);
    return a;
}

} // namespace

CellArithmetic cellArithmetic(const Walkthrough& w, engine::AttentionStep step,
                              const CellAddress& cell)
{
    const engine::AttentionTrace& t = *w.trace;
    const bool scoreShaped = engine::stepInfo(step).scoreShaped;
    const bool online = engine::stepInfo(step).stage == engine::AttentionStage::OnlineSoftmax;
    if (!scoreShaped && !online && step != AttentionStep::Context)
        return CellArithmeticUnavailable{
            "the arithmetic of a cell is shown for the scores, the scaled and masked scores, the "
            "online softmax, the weights and the context; this is " +
            std::string(engine::stepName(step))};
    const std::int64_t columns = scoreShaped ? t.keyLength()
        : online                             ? t.tileCount()
                                             : t.valueSize();
    if (cell.batch < 0 || cell.batch >= t.batchSize() || cell.head < 0 ||
        cell.head >= t.numHeads() || cell.query < 0 || cell.query >= t.queryLength() ||
        cell.column < 0 || cell.column >= columns)
        return CellArithmeticUnavailable{"there is no such cell in this trace"};
    const std::string missing = scoreShaped
        ? missingSteps(t,
                       {AttentionStep::QHeads, AttentionStep::KHeads, AttentionStep::Scores,
                        AttentionStep::Scaled, AttentionStep::Masked, AttentionStep::Weights})
        : online ? missingSteps(t, {AttentionStep::VHeads, AttentionStep::Masked,
                                    AttentionStep::OnlineMax, AttentionStep::OnlineSum,
                                    AttentionStep::Context})
                 : missingSteps(t, {AttentionStep::VHeads, AttentionStep::Weights,
                                    AttentionStep::Context});
    if (!missing.empty())
        return CellArithmeticUnavailable{
            w.weightsOnly()
                ? "an imported file holds the attention weights only, so there is no arithmetic "
                  "to show"
                : "this run did not keep " + missing +
                    " (a long run keeps only the weights); run a shorter text to see the "
                    "arithmetic"};
    if (scoreShaped)
        return scoreArithmetic(t, cell);
    if (online)
        return onlineArithmetic(t, cell);
    return contextArithmetic(t, cell);
}

std::vector<std::size_t> largestEntries(const std::vector<float>& row, std::size_t count,
                                        std::size_t keep)
{
    std::vector<std::size_t> order(row.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    count = std::min(count, row.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count),
                      order.end(), [&](std::size_t a, std::size_t b) {
                          return row[a] > row[b] || (row[a] == row[b] && a < b);
                      });
    order.resize(count);
    if (keep < row.size() && std::find(order.begin(), order.end(), keep) == order.end()) {
        if (!order.empty())
            order.back() = keep;
        else
            order.push_back(keep);
    }
    return order;
}

} // namespace attnviz::lesson
