#include "engine/attention_stages.h"

#include "engine/accurate_product.h"
#include "engine/non_finite.h"
#include "engine/online_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace attnviz::engine {
namespace {

template <typename S> constexpr S kBlocked = -std::numeric_limits<S>::infinity();
// The float stages spread their loops over the engine's threads; the exact pass is small and
// runs on one.
template <typename S> constexpr bool kOnThreads = std::is_same_v<S, float>;

std::int64_t positionAt(const std::vector<std::int64_t>& positions, std::int64_t b,
                        std::int64_t length, std::int64_t i)
{
    return positions.empty() ? i : positions[static_cast<std::size_t>(b * length + i)];
}

// "+Inf", "-Inf" or "NaN" for a value that is not finite as a float (a double beyond the float
// range counts: the trace would hold ±Inf).
template <typename S> std::optional<std::string> notFiniteAsFloat(S v)
{
    const auto f = static_cast<float>(v);
    if (std::isfinite(f))
        return std::nullopt;
    return std::isnan(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf";
}

template <typename S> std::optional<std::string> firstNotFinite(const S* values, std::size_t count)
{
    if constexpr (std::is_same_v<S, float>) {
        return firstNonFinite(values, count);
    } else {
        for (std::size_t i = 0; i < count; ++i)
            if (auto bad = notFiniteAsFloat(values[i]))
                return bad;
        return std::nullopt;
    }
}

template <typename S> void requireFiniteStep(const BasicTensor<S>& t, AttentionStep step)
{
    if (const auto bad = firstNotFinite(t.data(), static_cast<std::size_t>(t.size())))
        throw NonFiniteError(std::string(stepName(step)), *bad);
}

template <typename S>
void allocate(const StageInputs& in, BasicAttentionTrace<S>& t, AttentionStep step)
{
    t.step(step).reshape(stepAxes(step, t.sizes, in.weights.wO.rows()));
}

// y = x Wᵀ (+ b) for all batch items at once: the batch and token axes are contiguous, so the
// projection is one matrix product over B·N rows. In double every product of two floats is
// exact and the sums are rounded in 2^-53.
template <typename S>
void linear(ConstRowsView x, const RowMatrix& w, const std::optional<Eigen::RowVectorXf>& b, S* y)
{
    if constexpr (std::is_same_v<S, float>) {
        multiplyTransposedOnThreads(x, readRows(w), {y, x.rows, w.rows(), w.rows()},
                                    b ? b->data() : nullptr);
    } else {
        multiplyTransposedInDouble(x, readRows(w), y, w.rows());
        if (b)
            Eigen::Map<RowMatrixOf<double>>(y, x.rows, w.rows()).rowwise() +=
                b->template cast<double>();
    }
}

ConstRowsView allRows(const Tensor& x)
{
    const Eigen::Index rows = x.dim(0) * x.dim(1);
    return {x.data(), rows, x.dim(2), x.dim(2)};
}

// [batch, token, H·P] -> [batch, head, token, P]: head h owns feature columns [h·P, (h+1)·P).
// Copies are spread over the threads too: at 1024 tokens they take as long as a small product.
template <typename S> void splitHeads(const BasicTensor<S>& projected, BasicTensor<S>& split)
{
    const std::int64_t heads = split.dim(1);
    const Eigen::Index p = split.dim(3);
    const std::int64_t tasks = split.dim(0) * heads;
#pragma omp parallel for schedule(static) if (kOnThreads <S>)
    for (std::int64_t task = 0; task < tasks; ++task)
        split.matrix({task / heads, task % heads}) =
            projected.matrix({task / heads}).middleCols((task % heads) * p, p);
}

// RMSNorm of every head's row (per head), or of a token's H·P features taken together (the
// whole projection), with the gain (1 + w with Gemma's unit offset); the mean square, its root
// and the products in double, rounded once.
template <typename S>
void normHeads(const BasicTensor<S>& heads, const Eigen::RowVectorXf& gain,
               const QueryKeyNorm& norm, BasicTensor<S>& out)
{
    out.reshape(heads.axes());
    const std::int64_t B = heads.dim(0), H = heads.dim(1), N = heads.dim(2), P = heads.dim(3);
    const bool perHead = norm.scope == QueryKeyNorm::Scope::PerHead;
    const double offset = norm.unitOffset ? 1.0 : 0.0;
    // One task a (batch item, token): the whole projection's norm reads every head's row.
#pragma omp parallel for schedule(static) if (kOnThreads <S>)
    for (std::int64_t task = 0; task < B * N; ++task) {
        const std::int64_t b = task / N, n = task % N;
        const auto rowOf = [&](std::int64_t h) { return heads.matrix({b, h}).row(n); };
        double wholeSquares = 0;
        if (!perHead)
            for (std::int64_t h = 0; h < H; ++h)
                wholeSquares += rowOf(h).template cast<double>().squaredNorm();
        for (std::int64_t h = 0; h < H; ++h) {
            const auto x = rowOf(h);
            const double meanSquare = perHead
                ? x.template cast<double>().squaredNorm() / static_cast<double>(P)
                : wholeSquares / static_cast<double>(H * P);
            const double inverse = 1.0 / std::sqrt(meanSquare + norm.epsilon);
            auto y = out.matrix({b, h}).row(n);
            const std::int64_t g0 = perHead ? 0 : h * P;
            for (std::int64_t p = 0; p < P; ++p)
                y(p) = static_cast<S>(static_cast<double>(x(p)) * inverse *
                                      (offset + static_cast<double>(gain(g0 + p))));
        }
    }
}

// Hugging Face's apply_rotary_pos_emb with rotate_half: feature i and feature i + r/2 of every
// head form a pair that turns by its angle; features from r on pass unchanged.
template <typename S>
void rotateHeads(const BasicTensor<S>& heads, const RotaryTable& table, BasicTensor<S>& rotated)
{
    rotated.reshape(heads.axes());
    const std::int64_t B = heads.dim(0), H = heads.dim(1), N = heads.dim(2);
    const std::int64_t half = table.half;
#pragma omp parallel for schedule(static) if (kOnThreads <S>)
    for (std::int64_t task = 0; task < B * H; ++task) {
        const std::int64_t b = task / H, h = task % H;
        const auto x = heads.matrix({b, h});
        auto y = rotated.matrix({b, h});
        y = x;
        for (std::int64_t n = 0; n < N; ++n) {
            const auto k0 = static_cast<std::size_t>((b * N + n) * half);
            for (std::int64_t i = 0; i < half; ++i) {
                const double c = table.cos[k0 + static_cast<std::size_t>(i)];
                const double s = table.sin[k0 + static_cast<std::size_t>(i)];
                const double a = x(n, i), z = x(n, i + half);
                y(n, i) = static_cast<S>(a * c - z * s);
                y(n, i + half) = static_cast<S>(z * c + a * s);
            }
        }
    }
}

// A row's sum in double, its terms taken in 8 interleaved lanes (vectorised) then the lanes added
// pairwise: the order depends on the row's length alone, never on where it sits in memory (Eigen's
// own sum peels unaligned elements first), so a step kept in the trace has the bits of the same
// step computed in scratch.
double sumInFixedOrder(const float* x, Eigen::Index n)
{
    double lanes[8] = {};
    Eigen::Index j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; ++l)
            lanes[l] += static_cast<double>(x[j + l]);
    for (int l = 0; j < n; ++j, ++l)
        lanes[l] += static_cast<double>(x[j]);
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
        ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// The input a stage reads from a stream (the queries after QK-norm and rotation, the scores
// after the scale and the cap).
template <typename S>
const BasicTensor<S>& seen(const StageInputs& in, const BasicAttentionTrace<S>& t,
                           StepStream stream, AttentionStage reader)
{
    return t.step(latestStep(stream, reader, in.description));
}

template <typename S>
typename RowBlock<S>::Rows seenRows(const StageInputs& in, const RowBlock<S>& block,
                                    AttentionStage reader)
{
    return block.rowsOf(latestStep(StepStream::Score, reader, in.description));
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

template <typename S>
std::optional<NonFiniteStep> firstNonFiniteOf(const StageInputs& in,
                                              const BasicAttentionTrace<S>& t,
                                              const RowBlock<S>& block, AttentionStage stage)
{
    if (!stageInfo(stage).mayOverflow)
        return std::nullopt;
    for (const AttentionStepInfo& info : kAttentionStepTable) {
        if (info.stage != stage || !stepPresent(info.step, in.description))
            continue;
        if (!info.scoreShaped) { // the context: every value of the block's rows
            const auto rows = t.step(info.step).matrix({block.b, block.h});
            if (auto bad = firstNotFinite(rows.data() + block.r0 * rows.cols(),
                                          static_cast<std::size_t>(block.rows * rows.cols())))
                return NonFiniteStep{info.step, std::move(*bad)};
            continue;
        }
        const auto rows = block.rowsOf(info.step);
        for (Eigen::Index r = 0; r < block.rows; ++r) {
            const ResolvedMask::Row open = block.mask(in, r);
            const Eigen::Index start = std::max(block.front, open.start);
            const Eigen::Index limit = std::min(block.back, std::min(open.limit, block.keys));
            // Runs of open keys, checked vectorised; an explicit mask's zeros are skipped.
            for (Eigen::Index j = start; j < limit;) {
                Eigen::Index end = j;
                while (end < limit && (!open.allowed || open.allowed[end]))
                    ++end;
                if (auto bad = firstNotFinite(rows.data() + r * rows.outerStride() + j,
                                              static_cast<std::size_t>(end - j)))
                    return NonFiniteStep{info.step, std::move(*bad)};
                j = end + 1;
            }
        }
    }
    return std::nullopt;
}

const AttentionStageInfo& stageInfo(AttentionStage stage)
{
    const auto& info = kAttentionStageTable[static_cast<std::size_t>(stage)];
    if (info.stage != stage)
        throw std::logic_error("kAttentionStageTable is not in AttentionStage order");
    return info;
}

std::vector<Axis> stepAxes(AttentionStep step, const AttentionSizes& z, std::int64_t outputWidth)
{
    const AttentionStepInfo& info = stepInfo(step);
    const std::int64_t heads = info.keyValueHeads ? z.keyValueHeads : z.heads;
    std::vector<Axis> axes;
    std::string_view rest = info.axes;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string name(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        std::int64_t size = 0;
        if (name == "batch")
            size = z.batch;
        else if (name == "head")
            size = heads;
        else if (name == "query")
            size = z.queries;
        else if (name == "key")
            size = z.keys;
        else if (name == "d_k")
            size = z.queryKey;
        else if (name == "d_v")
            size = z.value;
        else if (name == "tile")
            size = z.tiles;
        else if (name == "feature")
            size = info.headColumns == HeadColumns::QueryKey ? heads * z.queryKey
                : info.headColumns == HeadColumns::Value     ? heads * z.value
                                                             : outputWidth;
        else
            throw std::logic_error("an axis of the step table has no size: " + name);
        axes.push_back({name, size});
    }
    return axes;
}

namespace stages {

template <typename S> void project(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    const AttentionWeights& w = in.weights;
    const std::pair<AttentionStep, std::pair<const Tensor*, const RowMatrix*>> all[] = {
        {AttentionStep::QProj, {&in.query, &w.wQ}},
        {AttentionStep::KProj, {&in.key, &w.wK}},
        {AttentionStep::VProj, {&in.value, &w.wV}},
    };
    const std::optional<Eigen::RowVectorXf>* biases[] = {&w.bQ, &w.bK, &w.bV};
    for (std::size_t k = 0; k < 3; ++k) {
        const auto& [step, from] = all[k];
        allocate(in, t, step);
        linear(allRows(*from.first), *from.second, *biases[k], t.step(step).data());
    }
}

template <typename S> void split(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    for (const auto& [to, from] : {std::pair{AttentionStep::QHeads, AttentionStep::QProj},
                                   {AttentionStep::KHeads, AttentionStep::KProj},
                                   {AttentionStep::VHeads, AttentionStep::VProj}}) {
        allocate(in, t, to);
        splitHeads(t.step(from), t.step(to));
    }
}

template <typename S> void normQueryKey(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    const QueryKeyNorm& norm = *in.description.queryKeyNorm;
    normHeads(seen(in, t, StepStream::Query, AttentionStage::NormQueryKey), *in.weights.qNorm, norm,
              t.qNormed);
    normHeads(seen(in, t, StepStream::Key, AttentionStage::NormQueryKey), *in.weights.kNorm, norm,
              t.kNormed);
}

template <typename S> void rotate(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    const std::int64_t B = t.batchSize();
    rotateHeads(seen(in, t, StepStream::Query, AttentionStage::Rotate),
                rotaryTable(in.description, B, t.queryLength(), in.positions.query), t.qRotated);
    rotateHeads(seen(in, t, StepStream::Key, AttentionStage::Rotate),
                rotaryTable(in.description, B, t.keyLength(), in.positions.key), t.kRotated);
}

template <typename S>
void scores(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block)
{
    const auto Q = seen(in, t, StepStream::Query, AttentionStage::Scores)
                       .matrix({block.b, block.h})
                       .middleRows(block.r0, block.rows);
    const auto K = seen(in, t, StepStream::Key, AttentionStage::Scores).matrix({block.b, block.g});
    auto out = block.rowsOf(AttentionStep::Scores);
    if constexpr (std::is_same_v<S, double>) {
        // Every key (the exact pass computes whole rows), in a summing order that depends on
        // the rows alone.
        multiplyTransposedInDouble(Q.data(), Q.rows(), Q.cols(), Q.outerStride(), K.data(),
                                   K.rows(), K.outerStride(), out.data(), out.outerStride());
        return;
    }
    // The live keys are one product whatever else is kept, so a kept step and the same step
    // recomputed have the same bits. Eigen's product, not accurate_product.h: over a head's few
    // features its kernel is twice as fast, and a pass small enough to care about the last bit
    // is computed exactly, in double.
    const Eigen::Index live = block.last - block.first;
    out.middleCols(block.first, live).noalias() = Q * K.middleRows(block.first, live).transpose();
    if (block.front < block.first)
        out.middleCols(block.front, block.first - block.front).noalias() =
            Q * K.middleRows(block.front, block.first - block.front).transpose();
    if (block.back > block.last)
        out.middleCols(block.last, block.back - block.last).noalias() =
            Q * K.middleRows(block.last, block.back - block.last).transpose();
}

template <typename S>
void scale(const StageInputs& in, BasicAttentionTrace<S>&, const RowBlock<S>& block)
{
    const auto from = seenRows(in, block, AttentionStage::Scale);
    auto out = block.rowsOf(AttentionStep::Scaled);
    const auto factor = static_cast<S>(in.description.scale());
    const Eigen::Index n = block.back - block.front;
    for (Eigen::Index r = 0; r < block.rows; ++r) {
        out.row(r).segment(block.front, n) = from.row(r).segment(block.front, n) * factor;
    }
}

template <typename S>
void cap(const StageInputs& in, BasicAttentionTrace<S>&, const RowBlock<S>& block)
{
    const auto from = seenRows(in, block, AttentionStage::Cap);
    auto out = block.rowsOf(AttentionStep::Capped);
    const double c = *in.description.logitSoftCap;
    // In double and rounded once: c · tanh(s / c) stays within ±c however large s is.
    for (Eigen::Index r = 0; r < block.rows; ++r)
        for (Eigen::Index j = block.front; j < block.back; ++j)
            out(r, j) = static_cast<S>(c * std::tanh(static_cast<double>(from(r, j)) / c));
}

template <typename S>
void bias(const StageInputs& in, BasicAttentionTrace<S>&, const RowBlock<S>& block)
{
    const auto from = seenRows(in, block, AttentionStage::Bias);
    auto out = block.rowsOf(AttentionStep::Biased);
    const auto slope =
        static_cast<S>(in.description.scoreBias->slopes[static_cast<std::size_t>(block.h)]);
    for (Eigen::Index r = 0; r < block.rows; ++r) {
        const std::int64_t qp = in.queryPosition(block.b, block.r0 + r);
        for (Eigen::Index j = block.front; j < block.back; ++j)
            out(r, j) = from(r, j) - slope * static_cast<S>(qp - in.keyPosition(block.b, j));
    }
}

template <typename S>
void mask(const StageInputs& in, BasicAttentionTrace<S>&, const RowBlock<S>& block)
{
    const auto from = seenRows(in, block, AttentionStage::Mask);
    auto out = block.rowsOf(AttentionStep::Masked);
    const Eigen::Index first = block.first, last = block.last;
    for (Eigen::Index r = 0; r < block.rows; ++r) {
        const ResolvedMask::Row keep = block.mask(in, r);
        const Eigen::Index limit = std::clamp<Eigen::Index>(keep.limit, 0, block.keys);
        const Eigen::Index start = std::min<Eigen::Index>(keep.start, limit);
        auto row = out.row(r);
        row.segment(first, last - first) = from.row(r).segment(first, last - first);
        row.segment(first, std::max<Eigen::Index>(start - first, 0)).setConstant(kBlocked<S>);
        row.segment(limit, std::max<Eigen::Index>(last - limit, 0)).setConstant(kBlocked<S>);
        if (block.wholeMasked) {
            row.head(first).setConstant(kBlocked<S>);
            row.tail(block.keys - last).setConstant(kBlocked<S>);
        }
        if (keep.allowed)
            for (Eigen::Index j = start; j < limit; ++j)
                if (keep.allowed[j] == 0)
                    row(j) = kBlocked<S>;
    }
}

// m and ℓ after each key tile, from the masked scores as the trace shows them (in float, the
// same kernel that replays a row for the lesson: engine::onlineSoftmaxOfRow), each row starting
// from its head's sink when the module has one.
template <typename S>
void onlineSoftmax(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block)
{
    const std::int64_t tile = *in.description.onlineSoftmaxTile, tiles = t.tileCount();
    const auto masked = block.rowsOf(AttentionStep::Masked);
    std::optional<float> sink;
    if (in.description.learnedSinks)
        sink = (*in.weights.sinks)(block.h);
    OnlineSoftmaxRow row;
    Eigen::VectorXf shown(block.keys);
    auto m = t.onlineMax.matrix({block.b, block.h});
    auto l = t.onlineSum.matrix({block.b, block.h});
    for (Eigen::Index r = 0; r < block.rows; ++r) {
        shown = masked.row(r).transpose().template cast<float>();
        row.restart(sink);
        for (std::int64_t k = 0; k < tiles; ++k) {
            const Eigen::Index k0 = k * tile, n = std::min<Eigen::Index>(tile, block.keys - k0);
            row.addTile(shown.data() + k0, n);
            m(block.r0 + r, k) = static_cast<S>(row.max());
            l(block.r0 + r, k) = static_cast<S>(row.sum());
        }
    }
}

template <typename S>
S softmaxRow(const S* in, S* out, Eigen::Index from, Eigen::Index to, std::optional<double> sink,
             bool guarded, typename RowBlock<S>::Scratch& scratch)
{
    const Eigen::Index n = to - from;
    const Eigen::Map<const Eigen::Array<S, 1, Eigen::Dynamic>> x(in + from, n);
    Eigen::Map<Eigen::Array<S, 1, Eigen::Dynamic>> y(out + from, n);
    S top = n > 0 ? x.maxCoeff() : kBlocked<S>;
    if (sink)
        top = std::max(top, static_cast<S>(*sink));
    if (top == kBlocked<S>) {
        // Every key blocked: softmax would be 0/0. AttnViz's query attends to nothing.
        y.setConstant(guarded ? S(0) : std::numeric_limits<S>::quiet_NaN());
        return S(0);
    }
    const double sinkTerm = sink ? std::exp(*sink - static_cast<double>(top)) : 0.0;
    if constexpr (std::is_same_v<S, float>) {
        // exp(x − max) in float, corrected by what x − max loses in float: with d = dh + dl,
        // exp(d) = exp(dh) (1 + dl) to far below a float's resolution. Without it the rounding
        // of d alone costs w · |d| · 2^-24, which large logits make the largest error.
        if (scratch.differences.size() < n) {
            scratch.differences.resize(n);
            scratch.lowParts.resize(n);
            scratch.exps.resize(n);
        }
        auto difference = scratch.differences.head(n);
        auto low = scratch.lowParts.head(n);
        // The exponentials in scratch that starts aligned: Eigen's vectorised exp treats an
        // unaligned head with scalar code, which would make a weight's last bit depend on where
        // its row sits in memory (a kept step would differ from the same step recomputed).
        auto e = scratch.exps.head(n);
        difference = x.template cast<double>() - static_cast<double>(top);
        // One statement each: an exp of a cast expression would not be vectorised.
        e = difference.template cast<float>();
        low = (difference - e.template cast<double>()).template cast<float>();
        e = e.exp();
        e += e * low;
        // Eigen's vectorised exp returns a denormal for −∞, not 0 (and the correction NaN):
        // blocked weights are exactly zero, as the softmax of −∞ is. A plain loop on floats,
        // which the compiler vectorises (Eigen 3.4's select on a comparison of doubles is not).
        float* exps = e.data();
        for (Eigen::Index j = 0; j < n; ++j)
            exps[j] = in[from + j] == kBlocked<float> ? 0.0f : exps[j];
        const double sum = sumInFixedOrder(exps, n) + sinkTerm;
        y = (e.template cast<double>() * (1.0 / sum)).template cast<float>();
        return static_cast<float>(sinkTerm / sum);
    } else {
        double sum = sinkTerm;
        for (Eigen::Index j = 0; j < n; ++j) {
            const double v = x(j);
            y(j) = v == kBlocked<double> ? 0.0 : std::exp(v - top);
            sum += y(j);
        }
        y /= sum;
        return sinkTerm / sum;
    }
}

template <typename S>
void softmax(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block)
{
    const auto masked = block.rowsOf(AttentionStep::Masked);
    auto weights = block.rowsOf(AttentionStep::Weights);
    const Eigen::Index first = block.first, last = block.last;
    std::optional<double> sink;
    if (in.description.learnedSinks)
        sink = (*in.weights.sinks)(block.h);
    for (Eigen::Index r = 0; r < block.rows; ++r) {
        auto row = weights.row(r);
        row.head(first).setZero();
        row.tail(block.keys - last).setZero();
        const S sinkWeight =
            softmaxRow(&masked(r, 0), &row(0), first, last, sink, true, *block.scratch);
        if (sink)
            t.sinkWeights.matrix({block.b})(block.h, block.r0 + r) = sinkWeight;
    }
}

template <typename S>
void context(const StageInputs& in, BasicAttentionTrace<S>& t, const RowBlock<S>& block)
{
    const auto V =
        seen(in, t, StepStream::Value, AttentionStage::Context).matrix({block.b, block.g});
    const auto weights = block.rowsOf(AttentionStep::Weights);
    auto out = t.context.matrix({block.b, block.h}).middleRows(block.r0, block.rows);
    const Eigen::Index first = block.first, live = block.last - block.first;
    // Blocked keys weigh 0: only the live ones are summed.
    if constexpr (std::is_same_v<S, float>) {
        // Each K/V head's values transposed once per thread, for the engine's exact-summing
        // product (accurate_product.h).
        RowMatrix& byFeature = block.scratch->valuesByFeature;
        if (const std::int64_t head = block.b * t.numKeyValueHeads() + block.g;
            block.scratch->valuesOf != head) {
            byFeature = V.transpose();
            block.scratch->valuesOf = head;
        }
        multiplyTransposed(readRows(weights.middleCols(first, live)),
                           {byFeature.data() + first, byFeature.rows(), live, byFeature.cols()},
                           writeRows(out));
    } else {
        const RowMatrixOf<double> byFeature = V.middleRows(first, live).transpose();
        multiplyTransposedInDouble(&weights(0, first), weights.rows(), live, weights.outerStride(),
                                   byFeature.data(), byFeature.rows(), byFeature.cols(), out.data(),
                                   out.outerStride());
    }
}

template <typename S> void concat(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    const std::int64_t H = t.context.dim(1), p = t.context.dim(3);
    allocate(in, t, AttentionStep::Concat);
    const std::int64_t tasks = t.batchSize() * H;
#pragma omp parallel for schedule(static) if (kOnThreads <S>)
    for (std::int64_t task = 0; task < tasks; ++task)
        t.concat.matrix({task / H}).middleCols((task % H) * p, p) =
            std::as_const(t.context).matrix({task / H, task % H});
    for (const int h : in.ablatedHeads)
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            t.concat.matrix({b}).middleCols(h * p, p).setZero();
}

template <typename S> void output(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    allocate(in, t, AttentionStep::Output);
    const Eigen::Index rows = t.batchSize() * t.queryLength(), width = t.concat.dim(2);
    const RowMatrix& w = in.weights.wO;
    if constexpr (std::is_same_v<S, float>) {
        linear({t.concat.data(), rows, width, width}, w, in.weights.bO, t.output.data());
    } else {
        // The concatenation is the heads' contexts unrounded: the product reads it in double.
        multiplyTransposedInDouble(t.concat.data(), rows, width, width, readRows(w),
                                   t.output.data(), w.rows());
        if (in.weights.bO)
            Eigen::Map<RowMatrixOf<double>>(t.output.data(), rows, w.rows()).rowwise() +=
                in.weights.bO->template cast<double>();
    }
}

} // namespace stages

template <typename S>
RowBlock<S> rowBlock(const StageInputs& in, std::int64_t b, int h, Eigen::Index r0,
                     Eigen::Index rows, Eigen::Index keys)
{
    RowBlock<S> block;
    block.b = b;
    block.h = h;
    block.g = in.description.keyValueHeadOf(h);
    block.r0 = r0;
    block.rows = rows;
    block.keys = keys;
    block.first = keys;
    block.last = 0;
    for (Eigen::Index r = 0; r < rows; ++r) {
        const ResolvedMask::Row keep = block.mask(in, r);
        const Eigen::Index limit = std::clamp<Eigen::Index>(keep.limit, 0, keys);
        if (keep.start < limit) {
            block.first = std::min<Eigen::Index>(block.first, keep.start);
            block.last = std::max(block.last, limit);
        }
    }
    if (block.first >= block.last)
        block.first = block.last = 0;
    block.front = block.first;
    block.back = block.last;
    return block;
}

template <typename S>
RowBlock<S> wholeTensorBlock(const StageInputs& in, BasicAttentionTrace<S>& t, std::int64_t b,
                             int h, Eigen::Index r0, Eigen::Index rows, AttentionStage upTo)
{
    // Every key: a whole-tensor pass computes every cell, and a common mistake that drops the
    // mask (or fills it with a number) has weights on keys the mask in force would block.
    RowBlock<S> block = rowBlock<S>(in, b, h, r0, rows, t.keyLength());
    block.first = block.front = 0;
    block.last = block.back = block.keys;
    block.wholeMasked = true;
    block.stride = block.keys;
    // Only the steps made by now: a reused trace may still hold later steps of another shape.
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (info.scoreShaped && info.stage <= upTo && stepPresent(info.step, in.description))
            block.at[static_cast<std::size_t>(info.step)] =
                t.step(info.step).matrix({b, h}).data() + r0 * block.keys;
    return block;
}

template <typename S>
void runStagesFrom(AttentionStage from, const StageInputs& in, BasicAttentionTrace<S>& t,
                   std::span<const StageReplacement> replacements,
                   std::optional<AttentionStage> before, NonFinite nonFinite)
{
    const bool refuse = nonFinite == NonFinite::Refused;
    typename RowBlock<S>::Scratch scratch;
    for (const AttentionStageInfo& info : kAttentionStageTable) {
        if (before && info.stage >= *before)
            break;
        if (info.stage < from || !info.present(in.description))
            continue;
        const auto replaced =
            std::find_if(replacements.begin(), replacements.end(),
                         [&](const StageReplacement& r) { return r.stage == info.stage; });
        if (replaced != replacements.end()) {
            if constexpr (std::is_same_v<S, float>)
                replaced->inFloat(in, t);
            else
                replaced->inDouble(in, t);
            continue;
        }
        const StageFunction<S>& run = [&]() -> const StageFunction<S>& {
            if constexpr (std::is_same_v<S, float>)
                return info.inFloat;
            else
                return info.inDouble;
        }();
        if (run.whole) {
            run.whole(in, t);
            if (refuse && info.mayOverflow)
                for (const AttentionStepInfo& step : kAttentionStepTable)
                    if (step.stage == info.stage && stepPresent(step.step, in.description))
                        requireFiniteStep(t.step(step.step), step.step);
            continue;
        }
        for (const AttentionStepInfo& step : kAttentionStepTable)
            if (step.stage == info.stage && stepPresent(step.step, in.description))
                allocate(in, t, step.step);
        std::optional<NonFiniteStep> firstBad;
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            for (int h = 0; h < t.numHeads(); ++h) {
                RowBlock<S> block = wholeTensorBlock(in, t, b, h, 0, t.queryLength(), info.stage);
                block.scratch = &scratch;
                run.block(in, t, block);
                if (refuse && !firstBad)
                    firstBad = firstNonFiniteOf(in, t, block, info.stage);
            }
        if (firstBad)
            throw NonFiniteError(std::string(stepName(firstBad->step)), firstBad->value);
    }
}

#define ATTNVIZ_STAGES_IN(S)                                                                       \
    template struct RowBlock<S>;                                                                   \
    template void stages::project<S>(const StageInputs&, BasicAttentionTrace<S>&);                 \
    template void stages::split<S>(const StageInputs&, BasicAttentionTrace<S>&);                   \
    template void stages::normQueryKey<S>(const StageInputs&, BasicAttentionTrace<S>&);            \
    template void stages::rotate<S>(const StageInputs&, BasicAttentionTrace<S>&);                  \
    template void stages::scores<S>(const StageInputs&, BasicAttentionTrace<S>&,                   \
                                    const RowBlock<S>&);                                           \
    template void stages::scale<S>(const StageInputs&, BasicAttentionTrace<S>&,                    \
                                   const RowBlock<S>&);                                            \
    template void stages::cap<S>(const StageInputs&, BasicAttentionTrace<S>&, const RowBlock<S>&); \
    template void stages::bias<S>(const StageInputs&, BasicAttentionTrace<S>&,                     \
                                  const RowBlock<S>&);                                             \
    template void stages::mask<S>(const StageInputs&, BasicAttentionTrace<S>&,                     \
                                  const RowBlock<S>&);                                             \
    template void stages::onlineSoftmax<S>(const StageInputs&, BasicAttentionTrace<S>&,            \
                                           const RowBlock<S>&);                                    \
    template void stages::softmax<S>(const StageInputs&, BasicAttentionTrace<S>&,                  \
                                     const RowBlock<S>&);                                          \
    template void stages::context<S>(const StageInputs&, BasicAttentionTrace<S>&,                  \
                                     const RowBlock<S>&);                                          \
    template void stages::concat<S>(const StageInputs&, BasicAttentionTrace<S>&);                  \
    template void stages::output<S>(const StageInputs&, BasicAttentionTrace<S>&);                  \
    template S stages::softmaxRow<S>(const S*, S*, Eigen::Index, Eigen::Index,                     \
                                     std::optional<double>, bool, RowBlock<S>::Scratch&);          \
    template RowBlock<S> wholeTensorBlock<S>(const StageInputs&, BasicAttentionTrace<S>&,          \
                                             std::int64_t, int, Eigen::Index, Eigen::Index,        \
                                             AttentionStage);                                      \
    template RowBlock<S> rowBlock<S>(const StageInputs&, std::int64_t, int, Eigen::Index,          \
                                     Eigen::Index, Eigen::Index);                                  \
    template void runStagesFrom<S>(AttentionStage, const StageInputs&, BasicAttentionTrace<S>&,    \
                                   std::span<const StageReplacement>,                              \
                                   std::optional<AttentionStage>, NonFinite);                      \
    template std::optional<NonFiniteStep> firstNonFiniteOf<S>(                                     \
        const StageInputs&, const BasicAttentionTrace<S>&, const RowBlock<S>&, AttentionStage);

ATTNVIZ_STAGES_IN(float)
ATTNVIZ_STAGES_IN(double)

#undef ATTNVIZ_STAGES_IN

} // namespace attnviz::engine
