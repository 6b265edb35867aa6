#include "engine/attention_stages.h"

#include "engine/accurate_product.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace attnviz::engine {
namespace {

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

std::int64_t positionAt(const std::vector<std::int64_t>& positions, std::int64_t b,
                        std::int64_t length, std::int64_t i)
{
    return positions.empty() ? i : positions[static_cast<std::size_t>(b * length + i)];
}

// y = x Wᵀ (+ b) for all batch items at once: the batch and token axes are contiguous, so the
// projection is one matrix product over B·N rows.
void linear(const Tensor& x, const RowMatrix& w, const std::optional<Eigen::RowVectorXf>& b,
            Tensor& y)
{
    const Eigen::Index rows = x.dim(0) * x.dim(1);
    multiplyTransposedOnThreads({x.data(), rows, x.dim(2), x.dim(2)}, readRows(w),
                                {y.data(), rows, w.rows(), w.rows()}, b ? b->data() : nullptr);
}

// [batch, token, H·P] -> [batch, head, token, P]: head h owns feature columns [h·P, (h+1)·P).
// Copies are spread over the threads too: at 1024 tokens they take as long as a small product.
void splitHeads(const Tensor& projected, Tensor& split)
{
    const std::int64_t heads = split.dim(1);
    const Eigen::Index p = split.dim(3);
    const std::int64_t tasks = split.dim(0) * heads;
#pragma omp parallel for schedule(static)
    for (std::int64_t task = 0; task < tasks; ++task)
        split.matrix({task / heads, task % heads}) =
            projected.matrix({task / heads}).middleCols((task % heads) * p, p);
}

// Hugging Face's apply_rotary_pos_emb with rotate_half: feature i and feature i + r/2 of every
// head form a pair that turns by its angle; features from r on pass unchanged.
void rotateHeads(const Tensor& heads, const RotaryTable& table, Tensor& rotated)
{
    rotated.reshape(heads.axes());
    const std::int64_t B = heads.dim(0), H = heads.dim(1), N = heads.dim(2);
    const std::int64_t half = table.half;
#pragma omp parallel for schedule(static)
    for (std::int64_t task = 0; task < B * H; ++task) {
        const std::int64_t b = task / H, h = task % H;
        const ConstMatrixView x = heads.matrix({b, h});
        MatrixView y = rotated.matrix({b, h});
        y = x;
        for (std::int64_t t = 0; t < N; ++t) {
            const auto k0 = static_cast<std::size_t>((b * N + t) * half);
            for (std::int64_t i = 0; i < half; ++i) {
                const double c = table.cos[k0 + static_cast<std::size_t>(i)];
                const double s = table.sin[k0 + static_cast<std::size_t>(i)];
                const double a = x(t, i), z = x(t, i + half);
                y(t, i) = static_cast<float>(a * c - z * s);
                y(t, i + half) = static_cast<float>(z * c + a * s);
            }
        }
    }
}

// The K/V heads the scores and the context read: rotated keys when the module has rotary
// positions.
const Tensor& keysOf(const AttentionTrace& t)
{
    return t.description.rotary ? t.kRotated : t.kHeads;
}

const Tensor& queriesOf(const AttentionTrace& t)
{
    return t.description.rotary ? t.qRotated : t.qHeads;
}

std::vector<Axis> scoreAxes(const AttentionTrace& t)
{
    return {{"batch", t.batchSize()},
            {"head", t.numHeads()},
            {"query", t.queryLength()},
            {"key", t.keyLength()}};
}

template <typename Vector> void softmaxInPlace(Vector v, bool guarded)
{
    const float top = v.maxCoeff();
    if (top == kBlocked) {
        // Every key blocked: softmax would be 0/0. AttnViz's query attends to nothing.
        v.setConstant(guarded ? 0.0f : std::numeric_limits<float>::quiet_NaN());
        return;
    }
    // In double, as the fast path does (multi_head_attention.cpp): x − max is exact there.
    std::vector<double> e(static_cast<std::size_t>(v.size()));
    double sum = 0;
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        const auto i = static_cast<std::size_t>(k);
        e[i] = v(k) == kBlocked ? 0.0 : std::exp(static_cast<double>(v(k)) - top);
        sum += e[i];
    }
    for (Eigen::Index k = 0; k < v.size(); ++k)
        v(k) = static_cast<float>(e[static_cast<std::size_t>(k)] / sum);
}

} // namespace

RotaryTable rotaryTable(const AttentionDescription& d, std::int64_t batch, std::int64_t tokens,
                        const std::vector<std::int64_t>& positions)
{
    RotaryTable table;
    const int r = d.rotatedSize();
    table.half = r / 2;
    const std::vector<double> frequency = d.rotary->frequencies(r);
    table.cos.resize(static_cast<std::size_t>(batch * tokens * table.half));
    table.sin.resize(table.cos.size());
    for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t t = 0; t < tokens; ++t) {
            const auto position = static_cast<double>(positionAt(positions, b, tokens, t));
            for (std::int64_t i = 0; i < table.half; ++i) {
                const double angle = position * frequency[static_cast<std::size_t>(i)];
                const auto k = static_cast<std::size_t>((b * tokens + t) * table.half + i);
                table.cos[k] = std::cos(angle);
                table.sin[k] = std::sin(angle);
            }
        }
    return table;
}

std::int64_t StageInputs::queryPosition(std::int64_t b, std::int64_t i) const
{
    return positionAt(positions.query, b, query.dim(1), i);
}

std::int64_t StageInputs::keyPosition(std::int64_t b, std::int64_t j) const
{
    return positionAt(positions.key, b, key.dim(1), j);
}

namespace stages {

void project(const StageInputs& in, AttentionTrace& t)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = in.query.dim(0), Nq = in.query.dim(1), Nk = in.key.dim(1);
    t.qProj.reshape({{"batch", B}, {"query", Nq}, {"feature", d.queryHeads * d.queryKeySize}});
    t.kProj.reshape({{"batch", B}, {"key", Nk}, {"feature", d.keyValueHeads * d.queryKeySize}});
    t.vProj.reshape({{"batch", B}, {"key", Nk}, {"feature", d.keyValueHeads * d.valueSize}});
    linear(in.query, in.weights.wQ, in.weights.bQ, t.qProj);
    linear(in.key, in.weights.wK, in.weights.bK, t.kProj);
    linear(in.value, in.weights.wV, in.weights.bV, t.vProj);
}

void split(const StageInputs& in, AttentionTrace& t)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = t.batchSize(), Nq = t.queryLength(), Nk = t.keyLength();
    t.qHeads.reshape(
        {{"batch", B}, {"head", d.queryHeads}, {"query", Nq}, {"d_k", d.queryKeySize}});
    t.kHeads.reshape(
        {{"batch", B}, {"head", d.keyValueHeads}, {"key", Nk}, {"d_k", d.queryKeySize}});
    t.vHeads.reshape({{"batch", B}, {"head", d.keyValueHeads}, {"key", Nk}, {"d_v", d.valueSize}});
    splitHeads(t.qProj, t.qHeads);
    splitHeads(t.kProj, t.kHeads);
    splitHeads(t.vProj, t.vHeads);
}

void rotate(const StageInputs& in, AttentionTrace& t)
{
    const std::int64_t B = t.batchSize();
    rotateHeads(t.qHeads, rotaryTable(in.description, B, t.queryLength(), in.positions.query),
                t.qRotated);
    rotateHeads(t.kHeads, rotaryTable(in.description, B, t.keyLength(), in.positions.key),
                t.kRotated);
}

void scores(const StageInputs& in, AttentionTrace& t)
{
    t.scores.reshape(scoreAxes(t));
    const Tensor &q = queriesOf(t), &k = keysOf(t);
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (int h = 0; h < t.numHeads(); ++h)
            multiplyTransposed(readRows(q.matrix({b, h})),
                               readRows(k.matrix({b, in.description.keyValueHeadOf(h)})),
                               writeRows(t.scores.matrix({b, h})));
}

void scale(const StageInputs& in, AttentionTrace& t)
{
    t.scaled.reshape(t.scores.axes());
    const float factor = 1.0f / in.description.divisor();
    std::transform(t.scores.values().begin(), t.scores.values().end(), t.scaled.values().begin(),
                   [factor](float v) { return v * factor; });
}

void bias(const StageInputs& in, AttentionTrace& t)
{
    t.biased.reshape(t.scaled.axes());
    const std::vector<float>& slopes = in.description.scoreBias->slopes;
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            const float slope = slopes[static_cast<std::size_t>(h)];
            auto out = t.biased.matrix({b, h});
            const auto scaled = std::as_const(t.scaled).matrix({b, h});
            for (Eigen::Index i = 0; i < out.rows(); ++i)
                for (Eigen::Index j = 0; j < out.cols(); ++j)
                    out(i, j) = scaled(i, j) -
                        slope * static_cast<float>(in.queryPosition(b, i) - in.keyPosition(b, j));
        }
}

const Tensor& maskInput(const AttentionTrace& t)
{
    return t.description.scoreBias ? t.biased : t.scaled;
}

void fillBlocked(const AttentionTrace& t, const ResolvedMask& mask, float fill, Tensor& masked)
{
    const Tensor& from = maskInput(t);
    masked.reshape(from.axes());
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            auto out = masked.matrix({b, h});
            out = from.matrix({b, h});
            for (Eigen::Index i = 0; i < out.rows(); ++i)
                for (Eigen::Index j = 0; j < out.cols(); ++j)
                    if (mask.blocked(b, i, j))
                        out(i, j) = fill;
        }
}

void mask(const StageInputs& in, AttentionTrace& t)
{
    fillBlocked(t, in.mask, kBlocked, t.masked);
}

// The plain reading of the online softmax (engine/online_softmax.h): each row's masked scores
// a tile at a time, m and ℓ after each tile.
void onlineSoftmax(const StageInputs& in, AttentionTrace& t)
{
    const std::int64_t tile = *in.description.onlineSoftmaxTile, tiles = t.tileCount();
    const std::vector<Axis> axes{{"batch", t.batchSize()},
                                 {"head", t.numHeads()},
                                 {"query", t.queryLength()},
                                 {"tile", tiles}};
    t.onlineMax.reshape(axes);
    t.onlineSum.reshape(axes);
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            const auto masked = std::as_const(t.masked).matrix({b, h});
            auto m = t.onlineMax.matrix({b, h});
            auto l = t.onlineSum.matrix({b, h});
            for (Eigen::Index i = 0; i < masked.rows(); ++i) {
                float runningMax = kBlocked;
                double runningSum = 0;
                for (std::int64_t k = 0; k < tiles; ++k) {
                    const Eigen::Index k0 = k * tile,
                                       n = std::min<Eigen::Index>(tile, masked.cols() - k0);
                    const float tileMax = masked.row(i).segment(k0, n).maxCoeff();
                    if (tileMax != kBlocked) {
                        const float newMax = std::max(runningMax, tileMax);
                        runningSum *= std::exp(static_cast<double>(runningMax) - newMax);
                        for (Eigen::Index j = k0; j < k0 + n; ++j)
                            if (masked(i, j) != kBlocked)
                                runningSum += std::exp(static_cast<double>(masked(i, j)) - newMax);
                        runningMax = newMax;
                    }
                    m(i, k) = runningMax;
                    l(i, k) = static_cast<float>(runningSum);
                }
            }
        }
}

void softmaxOf(const Tensor& masked, bool overQueries, bool guarded, Tensor& weights)
{
    weights.reshape(masked.axes());
    for (std::int64_t b = 0; b < masked.dim(0); ++b)
        for (std::int64_t h = 0; h < masked.dim(1); ++h) {
            auto w = weights.matrix({b, h});
            w = masked.matrix({b, h});
            if (overQueries)
                for (Eigen::Index j = 0; j < w.cols(); ++j)
                    softmaxInPlace(w.col(j), guarded);
            else
                for (Eigen::Index i = 0; i < w.rows(); ++i)
                    softmaxInPlace(w.row(i), guarded);
        }
}

void softmax(const StageInputs&, AttentionTrace& t)
{
    softmaxOf(t.masked, false, true, t.weights);
}

void context(const StageInputs& in, AttentionTrace& t)
{
    t.context.reshape({{"batch", t.batchSize()},
                       {"head", t.numHeads()},
                       {"query", t.queryLength()},
                       {"d_v", in.description.valueSize}});
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (int h = 0; h < t.numHeads(); ++h) {
            const RowMatrix valuesByFeature =
                std::as_const(t.vHeads).matrix({b, in.description.keyValueHeadOf(h)}).transpose();
            multiplyTransposed(readRows(std::as_const(t.weights).matrix({b, h})),
                               readRows(valuesByFeature), writeRows(t.context.matrix({b, h})));
        }
}

void concat(const StageInputs& in, AttentionTrace& t)
{
    const std::int64_t H = t.context.dim(1), p = t.context.dim(3);
    t.concat.reshape({{"batch", t.batchSize()}, {"query", t.queryLength()}, {"feature", H * p}});
    const std::int64_t tasks = t.batchSize() * H;
#pragma omp parallel for schedule(static)
    for (std::int64_t task = 0; task < tasks; ++task)
        t.concat.matrix({task / H}).middleCols((task % H) * p, p) =
            std::as_const(t.context).matrix({task / H, task % H});
    for (const int h : in.ablatedHeads)
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            t.concat.matrix({b}).middleCols(h * p, p).setZero();
}

void output(const StageInputs& in, AttentionTrace& t)
{
    t.output.reshape(
        {{"batch", t.batchSize()}, {"query", t.queryLength()}, {"feature", in.weights.wO.rows()}});
    linear(t.concat, in.weights.wO, in.weights.bO, t.output);
}

void findFullyMaskedRows(AttentionTrace& t)
{
    t.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t i = 0; i < t.queryLength(); ++i)
            if (t.masked.matrix({b, 0}).row(i).maxCoeff() == kBlocked)
                t.fullyMaskedRows.push_back({b, i});
}

} // namespace stages

void runStagesFrom(AttentionStage from, const StageInputs& in, AttentionTrace& trace,
                   std::span<const StageReplacement> replacements)
{
    for (const AttentionStageInfo& info : kAttentionStageTable) {
        if (info.stage < from || !stagePresent(info.stage, in.description))
            continue;
        StageFunction run = info.run;
        for (const StageReplacement& r : replacements)
            if (r.stage == info.stage)
                run = r.run;
        run(in, trace);
        if (info.stage == AttentionStage::Mask)
            stages::findFullyMaskedRows(trace);
    }
}

} // namespace attnviz::engine
