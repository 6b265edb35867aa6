#include "engine/exact_attention.h"

#include "engine/accurate_product.h"
#include "engine/non_finite.h"
#include "engine/online_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace attnviz::engine {
namespace {

using Wide = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using WideRow = Eigen::Matrix<double, 1, Eigen::Dynamic>;
constexpr double kBlocked = -std::numeric_limits<double>::infinity();

// A step in double: one matrix per batch item, or per (batch item, head) at index b · heads + h,
// laid out as the trace's tensor.
using WideStep = std::vector<Wide>;

std::optional<WideRow> wideBias(const std::optional<Eigen::RowVectorXf>& b)
{
    if (!b)
        return std::nullopt;
    return b->cast<double>();
}

WideStep linear(const Tensor& x, const RowMatrix& w, const std::optional<Eigen::RowVectorXf>& b)
{
    const std::optional<WideRow> bias = wideBias(b);
    WideStep y;
    for (std::int64_t i = 0; i < x.dim(0); ++i) {
        Wide& out = y.emplace_back(x.dim(1), w.rows());
        multiplyTransposedInDouble(readRows(x.matrix({i})), readRows(w), out.data(), out.cols());
        if (bias)
            out.rowwise() += *bias;
    }
    return y;
}

WideStep splitHeads(const WideStep& projected, std::int64_t heads, Eigen::Index size)
{
    WideStep split;
    for (const Wide& m : projected)
        for (std::int64_t h = 0; h < heads; ++h)
            split.push_back(m.middleCols(h * size, size));
    return split;
}

WideStep rotateHeads(const WideStep& heads, std::int64_t perBatch, const RotaryTable& table)
{
    WideStep rotated = heads;
    const std::int64_t half = table.half;
    for (std::size_t k = 0; k < heads.size(); ++k) {
        const std::int64_t b = static_cast<std::int64_t>(k) / perBatch;
        const Wide& x = heads[k];
        Wide& y = rotated[k];
        for (Eigen::Index t = 0; t < x.rows(); ++t)
            for (std::int64_t i = 0; i < half; ++i) {
                const auto a = static_cast<std::size_t>((b * x.rows() + t) * half + i);
                const double c = table.cos[a], s = table.sin[a];
                y(t, i) = x(t, i) * c - x(t, i + half) * s;
                y(t, i + half) = x(t, i + half) * c + x(t, i) * s;
            }
    }
    return rotated;
}

// Rounds a step to float into the trace.
void round(const WideStep& wide, std::vector<Axis> axes, Tensor& t)
{
    t.reshape(std::move(axes));
    float* out = t.data();
    for (const Wide& m : wide) {
        Eigen::Map<RowMatrix>(out, m.rows(), m.cols()) = m.cast<float>();
        out += m.size();
    }
}

// Refuses a step whose rounded values are not all finite, looking only where `counts` says
// (the cells a mask blocks are −∞ by design, and the fast path never computes them).
template <typename Counts>
void requireFiniteWhere(const Tensor& t, std::string_view step, Counts counts)
{
    const auto values = t.values();
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]) && counts(static_cast<std::int64_t>(i)))
            throw NonFiniteError(std::string(step), std::isnan(values[i]) ? "NaN"
                                         : values[i] > 0               ? "+Inf"
                                                                       : "-Inf");
}

void requireAllFinite(const Tensor& t, std::string_view step)
{
    requireFiniteWhere(t, step, [](std::int64_t) { return true; });
}

} // namespace

std::int64_t multiplyAddsOf(const StageInputs& in)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = in.query.dim(0), Nq = in.query.dim(1), Nk = in.key.dim(1);
    const AttentionWeights& w = in.weights;
    return B * (Nq * w.wQ.size() + Nk * (w.wK.size() + w.wV.size()) + Nq * w.wO.size() +
                d.queryHeads * Nq * Nk * (d.queryKeySize + d.valueSize));
}

void forwardExactly(const StageInputs& in, AttentionTrace& t)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = in.query.dim(0), Nq = in.query.dim(1), Nk = in.key.dim(1);
    const std::int64_t H = d.queryHeads, Hkv = d.keyValueHeads, P = d.queryKeySize,
                       Pv = d.valueSize;
    const AttentionWeights& w = in.weights;

    const WideStep qProj = linear(in.query, w.wQ, w.bQ);
    const WideStep kProj = linear(in.key, w.wK, w.bK);
    const WideStep vProj = linear(in.value, w.wV, w.bV);
    round(qProj, {{"batch", B}, {"query", Nq}, {"feature", H * P}}, t.qProj);
    round(kProj, {{"batch", B}, {"key", Nk}, {"feature", Hkv * P}}, t.kProj);
    round(vProj, {{"batch", B}, {"key", Nk}, {"feature", Hkv * Pv}}, t.vProj);
    requireAllFinite(t.qProj, "q_proj");
    requireAllFinite(t.kProj, "k_proj");
    requireAllFinite(t.vProj, "v_proj");

    WideStep qHeads = splitHeads(qProj, H, P);
    WideStep kHeads = splitHeads(kProj, Hkv, P);
    const WideStep vHeads = splitHeads(vProj, Hkv, Pv);
    round(qHeads, {{"batch", B}, {"head", H}, {"query", Nq}, {"d_k", P}}, t.qHeads);
    round(kHeads, {{"batch", B}, {"head", Hkv}, {"key", Nk}, {"d_k", P}}, t.kHeads);
    round(vHeads, {{"batch", B}, {"head", Hkv}, {"key", Nk}, {"d_v", Pv}}, t.vHeads);
    if (d.rotary) {
        qHeads = rotateHeads(qHeads, H, rotaryTable(d, B, Nq, in.positions.query));
        kHeads = rotateHeads(kHeads, Hkv, rotaryTable(d, B, Nk, in.positions.key));
        round(qHeads, t.qHeads.axes(), t.qRotated);
        round(kHeads, t.kHeads.axes(), t.kRotated);
        requireAllFinite(t.qRotated, "q_rotated");
        requireAllFinite(t.kRotated, "k_rotated");
    }

    // Scores … weights, one (batch item, head) at a time.
    const double divisor =
        d.scoreDivisor ? static_cast<double>(*d.scoreDivisor) : std::sqrt(static_cast<double>(P));
    WideStep scores, scaled, biased, masked, weights, context;
    for (std::int64_t b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const auto g = static_cast<std::size_t>(b * Hkv + d.keyValueHeadOf(h));
            scores.push_back(
                qHeads[static_cast<std::size_t>(b * H + h)].lazyProduct(kHeads[g].transpose()));
            scaled.push_back(scores.back() / divisor);
            Wide before = scaled.back();
            if (d.scoreBias) {
                const double slope = d.scoreBias->slopes[static_cast<std::size_t>(h)];
                for (std::int64_t i = 0; i < Nq; ++i)
                    for (std::int64_t j = 0; j < Nk; ++j)
                        before(i, j) -= slope *
                            static_cast<double>(in.queryPosition(b, i) - in.keyPosition(b, j));
                biased.push_back(before);
            }
            Wide& m = masked.emplace_back(before);
            Wide& a = weights.emplace_back(Wide::Zero(Nq, Nk));
            for (std::int64_t i = 0; i < Nq; ++i) {
                for (std::int64_t j = 0; j < Nk; ++j)
                    if (in.mask.blocked(b, i, j))
                        m(i, j) = kBlocked;
                const double top = m.row(i).maxCoeff();
                if (top == kBlocked)
                    continue; // every key blocked: the query attends to nothing
                double sum = 0;
                for (std::int64_t j = 0; j < Nk; ++j) {
                    a(i, j) = m(i, j) == kBlocked ? 0.0 : std::exp(m(i, j) - top);
                    sum += a(i, j);
                }
                a.row(i) /= sum;
            }
            context.push_back(a.lazyProduct(vHeads[g]));
        }
    t.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            if (in.mask.rowFullyBlocked(b, i))
                t.fullyMaskedRows.push_back({b, i});

    const std::vector<Axis> scoreAxes{{"batch", B}, {"head", H}, {"query", Nq}, {"key", Nk}};
    // Whether cell `index` of a score-shaped step is one the mask leaves open.
    const auto open = [&](std::int64_t index) {
        const std::int64_t j = index % Nk, i = index / Nk % Nq, b = index / (Nk * Nq * H);
        return !in.mask.blocked(b, i, j);
    };
    round(scores, scoreAxes, t.scores);
    round(scaled, scoreAxes, t.scaled);
    requireFiniteWhere(t.scores, "scores", open);
    requireFiniteWhere(t.scaled, "scaled", open);
    if (d.scoreBias) {
        round(biased, scoreAxes, t.biased);
        requireFiniteWhere(t.biased, "biased", open);
    }
    round(masked, scoreAxes, t.masked);
    if (const auto tile = d.onlineSoftmaxTile) {
        // m and ℓ from the masked scores as the trace shows them, so that a row replayed from
        // the trace (onlineSoftmaxOfRow) meets them exactly.
        const std::int64_t tiles = d.onlineSoftmaxTiles(Nk);
        const std::vector<Axis> tileAxes{{"batch", B}, {"head", H}, {"query", Nq}, {"tile", tiles}};
        t.onlineMax.reshape(tileAxes);
        t.onlineSum.reshape(tileAxes);
        OnlineSoftmaxRow row(Pv);
        for (std::int64_t b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h) {
                const ConstMatrixView values =
                    std::as_const(t.vHeads).matrix({b, d.keyValueHeadOf(h)});
                for (std::int64_t i = 0; i < Nq; ++i) {
                    row.restart();
                    for (std::int64_t k = 0; k < tiles; ++k) {
                        const std::int64_t k0 = k * *tile, n = std::min(*tile, Nk - k0);
                        row.addTile(std::as_const(t.masked).matrix({b, h}).row(i).data() + k0,
                                    n, values.middleRows(k0, n));
                        t.onlineMax.matrix({b, h})(i, k) = row.max();
                        t.onlineSum.matrix({b, h})(i, k) = static_cast<float>(row.sum());
                    }
                }
            }
    }
    round(weights, scoreAxes, t.weights);
    round(context, {{"batch", B}, {"head", H}, {"query", Nq}, {"d_v", Pv}}, t.context);
    requireAllFinite(t.context, "context");

    WideStep concat(static_cast<std::size_t>(B), Wide(Nq, H * Pv));
    for (std::int64_t b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            Wide& c = concat[static_cast<std::size_t>(b)];
            if (std::find(in.ablatedHeads.begin(), in.ablatedHeads.end(), h) !=
                in.ablatedHeads.end())
                c.middleCols(h * Pv, Pv).setZero();
            else
                c.middleCols(h * Pv, Pv) = context[static_cast<std::size_t>(b * H + h)];
        }
    round(concat, {{"batch", B}, {"query", Nq}, {"feature", H * Pv}}, t.concat);

    // Concat is the heads' contexts unrounded: the product reads it in double.
    const std::optional<WideRow> bO = wideBias(w.bO);
    WideStep output;
    for (const Wide& c : concat) {
        Wide& out = output.emplace_back(c.rows(), w.wO.rows());
        multiplyTransposedInDouble(c.data(), c.rows(), c.cols(), c.cols(), readRows(w.wO),
                                   out.data(), out.cols());
        if (bO)
            out.rowwise() += *bO;
    }
    round(output, {{"batch", B}, {"query", Nq}, {"feature", w.wO.rows()}}, t.output);
    requireAllFinite(t.output, "output");
}

} // namespace attnviz::engine
