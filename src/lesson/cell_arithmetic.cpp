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

std::string missingSteps(const engine::AttentionTrace& trace,
                         const std::vector<AttentionStep>& needed)
{
    std::string missing;
    for (AttentionStep s : needed)
        if (!trace.has(s))
            missing += (missing.empty() ? "" : ", ") + std::string(engine::stepName(s));
    return missing;
}

ScoreCellArithmetic scoreArithmetic(const Walkthrough& w, const CellAddress& c)
{
    const engine::AttentionTrace& t = *w.trace;
    const engine::AttentionDescription& d = t.description;
    ScoreCellArithmetic a;
    a.cell = c;
    a.keyValueHead = d.keyValueHeadOf(c.head);
    // The queries and keys as the scores stage reads them.
    a.queryStep = engine::latestStep(engine::StepStream::Query, engine::AttentionStage::Scores, d);
    a.keyStep = engine::latestStep(engine::StepStream::Key, engine::AttentionStage::Scores, d);
    const auto q = t.step(a.queryStep).matrix({c.batch, c.head}).row(c.query);
    const auto k = t.step(a.keyStep).matrix({c.batch, a.keyValueHead}).row(c.column);
    a.query.assign(q.data(), q.data() + q.size());
    a.key.assign(k.data(), k.data() + k.size());
    for (std::size_t p = 0; p < a.query.size(); ++p)
        a.products.push_back(double(a.query[p]) * double(a.key[p]));
    a.productSum = std::accumulate(a.products.begin(), a.products.end(), 0.0);
    const std::initializer_list<std::int64_t> at = {c.batch, c.head, c.query, c.column};
    a.score = t.scores.at(at);
    a.scale = d.scale();
    a.scaled = t.scaled.at(at);
    if (d.logitSoftCap) {
        a.cap = *d.logitSoftCap;
        a.capped = t.capped.at(at);
    }
    if (d.scoreBias) {
        const auto position = [](const std::vector<std::int64_t>& p, std::int64_t b, std::int64_t n,
                                 std::int64_t i) {
            return p.empty() ? i : p[static_cast<std::size_t>(b * n + i)];
        };
        const double distance =
            static_cast<double>(position(w.positions.query, c.batch, t.queryLength(), c.query) -
                                position(w.positions.key, c.batch, t.keyLength(), c.column));
        a.bias = -d.scoreBias->slopes[static_cast<std::size_t>(c.head)] * distance;
        a.biased = t.biased.at(at);
    }
    a.maskedRow = rowOf(t.masked, c);
    a.weightRow = rowOf(t.weights, c);
    a.weight = t.weights.at(at);
    const auto open = [](float v) { return !(std::isinf(v) && v < 0); };
    a.blocked = !open(a.maskedRow[static_cast<std::size_t>(c.column)]);
    a.rowFullyMasked = std::none_of(a.maskedRow.begin(), a.maskedRow.end(), open);
    a.exps.assign(a.maskedRow.size(), 0.0);
    if (d.learnedSinks && w.weights() && w.weights()->sinks) {
        a.sink = (*w.weights()->sinks)(c.head);
        a.sinkWeight = t.sinkWeights.at({c.batch, c.head, c.query});
    }
    if (a.rowFullyMasked && !a.sink)
        return a;
    a.rowMax = a.sink ? *a.sink : -std::numeric_limits<float>::infinity();
    for (float v : a.maskedRow)
        if (open(v))
            a.rowMax = std::max(a.rowMax, v);
    for (std::size_t j = 0; j < a.maskedRow.size(); ++j)
        if (open(a.maskedRow[j]))
            a.exps[j] = std::exp(double(a.maskedRow[j]) - double(a.rowMax));
    if (a.sink)
        a.sinkExp = std::exp(double(*a.sink) - double(a.rowMax));
    a.expSum = std::accumulate(a.exps.begin(), a.exps.end(), 0.0) + a.sinkExp;
    return a;
}

ContextCellArithmetic contextArithmetic(const engine::AttentionTrace& t, const CellAddress& c)
{
    ContextCellArithmetic a;
    a.cell = c;
    a.keyValueHead = t.description.keyValueHeadOf(c.head);
    a.weights = rowOf(t.weights, c);
    const auto values = t.vHeads.matrix({c.batch, a.keyValueHead});
    for (Eigen::Index j = 0; j < values.rows(); ++j)
        a.values.push_back(values(j, c.column));
    for (std::size_t j = 0; j < a.weights.size(); ++j)
        a.products.push_back(double(a.weights[j]) * double(a.values[j]));
    a.productSum = std::accumulate(a.products.begin(), a.products.end(), 0.0);
    a.context = t.context.at({c.batch, c.head, c.query, c.column});
    return a;
}

OnlineCellArithmetic onlineArithmetic(const Walkthrough& w, const CellAddress& c)
{
    const engine::AttentionTrace& t = *w.trace;
    OnlineCellArithmetic a;
    a.cell = c;
    std::optional<float> sink;
    if (t.description.learnedSinks && w.weights() && w.weights()->sinks)
        sink = (*w.weights()->sinks)(c.head);
    a.tiles = engine::onlineSoftmaxOfRow(t, c.batch, c.head, c.query, sink);
    const engine::OnlineSoftmaxTile& tile = a.tiles[static_cast<std::size_t>(c.column)];
    const std::vector<float> masked = rowOf(t.masked, c);
    a.tileScores.assign(masked.begin() + tile.firstKey, masked.begin() + tile.firstKey + tile.keys);
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
    const engine::AttentionDescription& d = t.description;
    std::vector<AttentionStep> scoreSteps{
        engine::latestStep(engine::StepStream::Query, engine::AttentionStage::Scores, d),
        engine::latestStep(engine::StepStream::Key, engine::AttentionStage::Scores, d)};
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        if (info.scoreShaped && t.computes(info.step))
            scoreSteps.push_back(info.step);
    if (d.learnedSinks)
        scoreSteps.push_back(AttentionStep::SinkWeights);
    const std::string missing = scoreShaped ? missingSteps(t, scoreSteps)
        : online
        ? missingSteps(t,
                       {AttentionStep::VHeads, AttentionStep::Masked, AttentionStep::OnlineMax,
                        AttentionStep::OnlineSum, AttentionStep::Context})
        : missingSteps(t, {AttentionStep::VHeads, AttentionStep::Weights, AttentionStep::Context});
    if (!missing.empty())
        return CellArithmeticUnavailable{
            w.weightsOnly()
                ? "an imported file holds the attention weights only, so there is no arithmetic "
                  "to show"
                : "this run did not keep " + missing +
                    " (a long run keeps only the weights); run a shorter text to see the "
                    "arithmetic"};
    if (scoreShaped)
        return scoreArithmetic(w, cell);
    if (online)
        return onlineArithmetic(w, cell);
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
