#include "engine/multi_head_attention.h"

#include "engine/accurate_product.h"
#include "engine/exact_attention.h"
#include "engine/input_error.h"
#include "engine/non_finite.h"
#include "engine/online_softmax.h"
#include "engine/resolved_mask.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attnviz::engine {
namespace {

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

// Rows of one head's score matrix handled together: small enough that scores, scaled, masked and
// weights of the block stay in L2 between the product that writes them and the softmax that reads
// them, large enough that the products stay efficient.
constexpr Eigen::Index kQueryBlock = 64;

std::string str(Eigen::Index v)
{
    return std::to_string(v);
}

std::string shapeOf(const RowMatrix& m)
{
    return shapeText(std::vector<std::int64_t>{m.rows(), m.cols()});
}

void checkBias(const std::optional<Eigen::RowVectorXf>& bias, const char* name, Eigen::Index size,
               const char* what)
{
    if (bias && bias->size() != size)
        throw InputError(std::string(name) + " has " + str(bias->size()) + " values; expected " +
                         str(size) + " (" + what + ")");
}

void checkInput(const Tensor& t, const char* name, const char* tokens, const char* width,
                Eigen::Index expectedWidth, const char* weight)
{
    if (t.rank() != 3)
        throw InputError(std::string(name) + " has " + std::to_string(t.rank()) +
                         " dimensions; expected 3 [B, " + tokens + ", " + width + "]");
    for (std::size_t a = 0; a < 3; ++a)
        if (t.dim(a) == 0)
            throw InputError(std::string(name) + " has a zero-sized dimension " +
                             std::to_string(a) + "; every dimension must be at least 1");
    if (t.dim(2) != expectedWidth)
        throw InputError(std::string(name) + " has width " + std::to_string(t.dim(2)) +
                         "; expected " + str(expectedWidth) + " to match the columns of " + weight);
}

// One block's worth of the score-shaped steps, in a buffer of its own. Every block is computed
// here, whether its steps are kept or not, and copied into the trace afterwards when they are:
// Eigen's vectorised loops treat a row's unaligned head and tail with scalar code, so computing
// in place would make the last bit of a result depend on where the row sits in memory (and a
// trace that keeps a step would differ from one that recomputes it).
// Its rows start 64-byte aligned (a stride rounded up to 16 floats), so every row is treated
// the same way by the vectorised code.
struct BlockRows {
    float* scores;
    float* scaled;
    float* biased;
    float* masked;
    float* weights;
    Eigen::Index stride;
    // Per thread, reused from block to block:
    RowMatrix* valuesByFeature; ///< a K/V head's value rows transposed, for the context's product
    std::int64_t* valuesOf; ///< which one: b · H_kv + g, or −1
    Eigen::Array<double, 1, Eigen::Dynamic>* differences; ///< one row's x − max, in double
    Eigen::Array<float, 1, Eigen::Dynamic>* lowParts; ///< what x − max loses in float
};

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

using BlockView = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstBlockView = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

// Which score-shaped steps the trace keeps: what attendBlock must fill beyond what the weights
// need.
struct KeptScoreSteps {
    bool scores = false, scaled = false, biased = false, masked = false, weights = false;
    bool online = false; ///< online_max and online_sum
    bool wholeRows() const { return scores || scaled || biased; }
};

// With an online softmax, what a block's rows share: one row's running state, reused row after
// row, and the tile.
struct OnlinePass {
    OnlineSoftmaxRow row;
    Eigen::Index tile = 0;
};

// Stages Scores … Context for the query rows [r0, r0 + rows) of query head h (the formula's
// names: S = Q Kᵀ, A = softmax(mask(S / √d_k + bias)), C = A V, with K and V those of h's K/V
// head).
//
// Keys that every row of the block has blocked by the causal, window or length mask (before
// `first`, from `last` on) get weight 0, so the weights and the context need only the columns
// [first, last) of S: with a causal mask that halves the attention products, and a sliding
// window makes them independent of the length. The other columns of the steps before the mask
// are computed by further products only when the trace keeps those steps, so the live columns,
// and with them weights and context, are the same bits whatever is kept (a recomputed layer
// equals a kept one).
// The first step of a block whose values are not finite, and the first such value.
struct NonFiniteStep {
    AttentionStep step;
    std::string value;
};

std::optional<NonFiniteStep> firstNonFiniteIn(const float* block, Eigen::Index rows,
                                              Eigen::Index stride, Eigen::Index from,
                                              Eigen::Index to, AttentionStep step)
{
    for (Eigen::Index r = 0; r < rows; ++r)
        if (auto value = firstNonFinite(block + r * stride + from, static_cast<std::size_t>(to - from)))
            return NonFiniteStep{step, std::move(*value)};
    return std::nullopt;
}

// With an online softmax (`online` set) the masked rows are whole (−∞ outside [first, last)),
// and each row's keys are then read tile by tile: m and ℓ after every tile, the context as o / ℓ
// and the weights from the final m and ℓ. The scores come from the same products as the plain
// pass's, so the two passes start from the same bits.
void onlineSoftmaxRow(AttentionTrace& t, std::int64_t b, int h, Eigen::Index i,
                      const float* masked, const ConstMatrixView& V, OnlinePass& online,
                      float* weights, Eigen::Index first, Eigen::Index last,
                      const KeptScoreSteps& kept)
{
    const Eigen::Index nk = t.keyLength();
    OnlineSoftmaxRow& row = online.row;
    row.restart();
    for (Eigen::Index k = 0, k0 = 0; k0 < nk; ++k, k0 += online.tile) {
        const Eigen::Index n = std::min(online.tile, nk - k0);
        row.addTile(masked + k0, n, V.middleRows(k0, n));
        if (kept.online) {
            t.onlineMax.matrix({b, h})(i, k) = row.max();
            t.onlineSum.matrix({b, h})(i, k) = static_cast<float>(row.sum());
        }
    }
    row.writeContext(&t.context.matrix({b, h})(i, 0));
    // Over the live keys only, as the plain pass computes its exponentials.
    std::fill(weights, weights + first, 0.0f);
    std::fill(weights + last, weights + nk, 0.0f);
    row.writeWeights(masked + first, last - first, weights + first);
}

std::optional<NonFiniteStep> attendBlock(const StageInputs& in, AttentionTrace& t,
                                         const ResolvedMask& mask, std::int64_t b, int h,
                                         Eigen::Index r0, Eigen::Index rows, float scale,
                                         const BlockRows& out, const KeptScoreSteps& kept,
                                         OnlinePass* online)
{
    const AttentionDescription& d = in.description;
    const int g = d.keyValueHeadOf(h);
    const Eigen::Index nk = t.keyLength();
    const Tensor& queries = d.rotary ? t.qRotated : t.qHeads;
    const Tensor& keys = d.rotary ? t.kRotated : t.kHeads;
    const auto Q = queries.matrix({b, h}).middleRows(r0, rows);
    const ConstMatrixView K = keys.matrix({b, g});
    const ConstMatrixView V = std::as_const(t.vHeads).matrix({b, g});

    Eigen::Index first = nk, last = 0;
    for (Eigen::Index r = 0; r < rows; ++r) {
        const ResolvedMask::Row keep = mask.row(b, r0 + r);
        const Eigen::Index limit = std::clamp<Eigen::Index>(keep.limit, 0, nk);
        if (keep.start < limit) {
            first = std::min<Eigen::Index>(first, keep.start);
            last = std::max(last, limit);
        }
    }
    if (first >= last)
        first = last = 0;
    const Eigen::Index live = last - first;
    const Eigen::Index front = kept.wholeRows() ? 0 : first;
    const Eigen::Index back = kept.wholeRows() ? nk : last;

    const Eigen::OuterStride<> stride(out.stride);
    BlockView S(out.scores, rows, nk, stride);
    // Eigen's GEMM here, not accurate_product.h: over a head's few features (64) its kernel is
    // twice as fast, and a pass small enough to care about the last bit is computed exactly
    // (exact_attention.h). The live columns are one product whatever else is kept, so a kept
    // step and the same step recomputed have the same bits.
    S.middleCols(first, live).noalias() = Q * K.middleRows(first, live).transpose();
    if (kept.wholeRows()) {
        if (first > 0)
            S.leftCols(first).noalias() = Q * K.topRows(first).transpose();
        if (last < nk)
            S.rightCols(nk - last).noalias() = Q * K.bottomRows(nk - last).transpose();
    }

    const float* slopes = d.scoreBias ? d.scoreBias->slopes.data() : nullptr;
    for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::Index i = r0 + r;
        auto scaled = BlockView(out.scaled, rows, nk, stride).row(r).array();
        auto biased = BlockView(out.biased, rows, nk, stride).row(r).array();
        auto masked = BlockView(out.masked, rows, nk, stride).row(r).array();
        auto weights = BlockView(out.weights, rows, nk, stride).row(r).array();
        scaled.segment(front, back - front) = S.row(r).segment(front, back - front).array() * scale;
        // What the mask stage reads: the biased scores with a bias, else the scaled ones.
        auto before = slopes ? biased : scaled;
        if (slopes) {
            const std::int64_t qp = in.queryPosition(b, i);
            for (Eigen::Index j = front; j < back; ++j)
                biased(j) = scaled(j) - slopes[h] * static_cast<float>(qp - in.keyPosition(b, j));
        }

        const ResolvedMask::Row keep = mask.row(b, i);
        const Eigen::Index limit = std::clamp<Eigen::Index>(keep.limit, 0, nk);
        const Eigen::Index start = std::min(keep.start, limit);
        masked.segment(first, live) = before.segment(first, live);
        masked.segment(first, std::max<Eigen::Index>(start - first, 0)).setConstant(kBlocked);
        masked.segment(limit, std::max<Eigen::Index>(last - limit, 0)).setConstant(kBlocked);
        if (kept.masked || online) {
            masked.head(first).setConstant(kBlocked);
            masked.tail(nk - last).setConstant(kBlocked);
        }
        if (keep.allowed)
            for (Eigen::Index j = start; j < limit; ++j)
                if (keep.allowed[j] == 0)
                    masked(j) = kBlocked;
        if (online) {
            onlineSoftmaxRow(t, b, h, i, &masked(0), V, *online, &weights(0), first, last, kept);
            continue;
        }

        weights.head(first).setZero();
        weights.tail(nk - last).setZero();
        const float rowMax =
            limit > start ? masked.segment(start, limit - start).maxCoeff() : kBlocked;
        if (rowMax == kBlocked) {
            // Every key blocked: softmax would be 0/0. Such a query attends to nothing.
            weights.segment(first, live).setZero();
            continue;
        }
        // exp(x − max) in float, corrected by what x − max loses in float: with d = dh + dl,
        // exp(d) = exp(dh) (1 + dl) to far below a float's resolution. Without it the rounding of
        // d alone costs w · |d| · 2^-24, which large logits make the largest error of the step.
        auto difference = out.differences->head(live);
        auto low = out.lowParts->head(live);
        auto e = weights.segment(first, live);
        difference = masked.segment(first, live).cast<double>() - static_cast<double>(rowMax);
        e = difference.cast<float>();
        low = (difference - e.cast<double>()).cast<float>();
        e = e.exp();
        e += e * low;
        // Eigen's vectorised exp clamps its argument and returns a denormal for −∞, not 0: make
        // blocked weights exactly zero, as the softmax of −∞ is.
        weights.segment(first, std::max<Eigen::Index>(start - first, 0)).setZero();
        weights.segment(limit, std::max<Eigen::Index>(last - limit, 0)).setZero();
        if (keep.allowed)
            for (Eigen::Index j = start; j < limit; ++j)
                if (keep.allowed[j] == 0)
                    weights(j) = 0.0f;
        const double sum = sumInFixedOrder(&weights(first), live);
        e = (e.cast<double>() * (1.0 / sum)).cast<float>();
    }

    // Context rows are the weighted sums of the value rows (blocked keys weigh 0).
    auto context = t.context.matrix({b, h}).middleRows(r0, rows);
    if (!online) {
        RowMatrix& valuesByFeature = *out.valuesByFeature;
        if (const std::int64_t head = b * t.numKeyValueHeads() + g; *out.valuesOf != head) {
            valuesByFeature = V.transpose();
            *out.valuesOf = head;
        }
        multiplyTransposed(
            readRows(ConstBlockView(out.weights, rows, nk, stride).middleCols(first, live)),
            {valuesByFeature.data() + first, valuesByFeature.rows(), live, valuesByFeature.cols()},
            writeRows(context));
    }

    // Where values stop being finite, in step order: the masked scores are the scaled (or
    // biased) ones where they are not blocked, and a softmax of finite numbers is finite.
    if (auto bad = firstNonFiniteIn(out.scores, rows, out.stride, front, back, AttentionStep::Scores))
        return bad;
    if (auto bad = firstNonFiniteIn(out.scaled, rows, out.stride, front, back, AttentionStep::Scaled))
        return bad;
    if (slopes)
        if (auto bad =
                firstNonFiniteIn(out.biased, rows, out.stride, front, back, AttentionStep::Biased))
            return bad;
    for (Eigen::Index r = 0; r < rows; ++r)
        if (auto value = firstNonFinite(&context(r, 0), static_cast<std::size_t>(context.cols())))
            return NonFiniteStep{AttentionStep::Context, std::move(*value)};
    return std::nullopt;
}

// Copies a block's rows of one step into the trace.
void keepRows(Tensor& t, std::int64_t b, std::int64_t h, Eigen::Index r0, Eigen::Index rows,
              const float* block, Eigen::Index stride)
{
    t.matrix({b, h}).middleRows(r0, rows) =
        ConstBlockView(block, rows, t.dim(3), Eigen::OuterStride<>(stride));
}

// The fast path of the stages Scores … Context: heads and blocks of query rows are independent,
// so threads take whole blocks (Eigen runs the products inside a parallel region on one thread,
// which is what we want here). Score-shaped steps that are not kept never exist in full.
void attend(const StageInputs& in, const AttentionKeep& keep, AttentionTrace& t)
{
    const std::int64_t B = t.batchSize(), H = t.numHeads(), Nq = t.queryLength(),
                       Nk = t.keyLength();
    const std::vector<Axis> scoreAxes{{"batch", B}, {"head", H}, {"query", Nq}, {"key", Nk}};
    const KeptScoreSteps kept{keep.has(AttentionStep::Scores), keep.has(AttentionStep::Scaled),
                              keep.has(AttentionStep::Biased) && in.description.scoreBias,
                              keep.has(AttentionStep::Masked), keep.has(AttentionStep::Weights),
                              in.description.onlineSoftmaxTile &&
                                  (keep.has(AttentionStep::OnlineMax) ||
                                   keep.has(AttentionStep::OnlineSum))};
    const std::pair<bool, Tensor AttentionTrace::*> steps[] = {
        {kept.scores, &AttentionTrace::scores},   {kept.scaled, &AttentionTrace::scaled},
        {kept.biased, &AttentionTrace::biased},   {kept.masked, &AttentionTrace::masked},
        {kept.weights, &AttentionTrace::weights},
    };
    for (const auto& [keepIt, field] : steps) {
        if (keepIt)
            (t.*field).reshape(scoreAxes);
        else
            t.*field = Tensor();
    }
    for (Tensor* step : {&t.onlineMax, &t.onlineSum}) {
        if (kept.online)
            step->reshape({{"batch", B}, {"head", H}, {"query", Nq}, {"tile", t.tileCount()}});
        else
            *step = Tensor();
    }
    t.context.reshape(
        {{"batch", B}, {"head", H}, {"query", Nq}, {"d_v", in.description.valueSize}});

    t.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            if (in.mask.rowFullyBlocked(b, i))
                t.fullyMaskedRows.push_back({b, i});

    const float scale = 1.0f / in.description.divisor();
    const std::int64_t blocksPerHead = (Nq + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t tasks = B * H * blocksPerHead;
    std::optional<NonFiniteStep> firstBad; // an exception must not leave the parallel region
#pragma omp parallel
    {
        const Eigen::Index stride = (Nk + 15) / 16 * 16;
        RowMatrix scratch(5 * kQueryBlock, stride); // Eigen aligns it for its widest vectors
        const auto part = [&](int k) { return scratch.data() + k * kQueryBlock * stride; };
        RowMatrix valuesByFeature;
        std::int64_t valuesOf = -1;
        Eigen::Array<double, 1, Eigen::Dynamic> differences(Nk);
        Eigen::Array<float, 1, Eigen::Dynamic> lowParts(Nk);
        const BlockRows block{part(0), part(1),          part(2),   part(3),      part(4),
                              stride,  &valuesByFeature, &valuesOf, &differences, &lowParts};
        std::optional<OnlinePass> online;
        if (const auto tile = in.description.onlineSoftmaxTile)
            online = OnlinePass{OnlineSoftmaxRow(in.description.valueSize),
                                static_cast<Eigen::Index>(std::min(*tile, Nk))};
#pragma omp for schedule(static)
        for (std::int64_t task = 0; task < tasks; ++task) {
            const std::int64_t head = task / blocksPerHead, b = head / H;
            const int h = static_cast<int>(head % H);
            const Eigen::Index r0 = (task % blocksPerHead) * kQueryBlock;
            const Eigen::Index rows = std::min<Eigen::Index>(kQueryBlock, Nq - r0);
            if (auto bad = attendBlock(in, t, in.mask, b, h, r0, rows, scale, block, kept,
                                       online ? &*online : nullptr))
#pragma omp critical(attnviz_non_finite)
                if (!firstBad || bad->step < firstBad->step)
                    firstBad = std::move(bad);
            const std::pair<bool, std::pair<Tensor*, const float*>> out[] = {
                {kept.scores, {&t.scores, block.scores}},
                {kept.scaled, {&t.scaled, block.scaled}},
                {kept.biased, {&t.biased, block.biased}},
                {kept.masked, {&t.masked, block.masked}},
                {kept.weights, {&t.weights, block.weights}},
            };
            for (const auto& [keepIt, where] : out)
                if (keepIt)
                    keepRows(*where.first, b, h, r0, rows, where.second, stride);
        }
    }
    if (firstBad)
        throw NonFiniteError(std::string(stepName(firstBad->step)), firstBad->value);
}

// Stages Project, Split and Rotate. Values that stop being finite are refused where they first
// appear (non_finite.h); the split only moves numbers.
void projectSplitRotate(const StageInputs& in, AttentionTrace& t)
{
    stages::project(in, t);
    requireFinite(t.qProj, "q_proj");
    requireFinite(t.kProj, "k_proj");
    requireFinite(t.vProj, "v_proj");
    stages::split(in, t);
    if (in.description.rotary) {
        stages::rotate(in, t);
        requireFinite(t.qRotated, "q_rotated");
        requireFinite(t.kRotated, "k_rotated");
    }
}

// Drops the steps `keep` does not ask for (the output always stays) and those the module has
// not: everything up to the concatenation is needed to compute, not to keep.
void dropUnkept(const AttentionKeep& keep, AttentionTrace& t)
{
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if ((!keep.has(info.step) && info.step != AttentionStep::Output) ||
            !stepPresent(info.step, t.description))
            t.*info.field = Tensor();
}

// `fresh` appended to `cached` along axis `keyAxis` (the key axis of a cached step: a projection's
// tokens, a head's keys); an empty `cached` becomes a copy of `fresh`.
void appendKeys(Tensor& cached, const Tensor& fresh, std::size_t keyAxis)
{
    if (cached.rank() == 0) {
        cached = fresh;
        return;
    }
    std::vector<Axis> axes = cached.axes();
    const std::int64_t n = axes[keyAxis].size, m = fresh.dim(keyAxis);
    axes[keyAxis].size = n + m;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < keyAxis; ++a)
        outer *= axes[a].size;
    for (std::size_t a = keyAxis + 1; a < axes.size(); ++a)
        inner *= axes[a].size;
    Tensor grown(axes);
    for (std::int64_t o = 0; o < outer; ++o) {
        std::copy_n(cached.data() + o * n * inner, n * inner, grown.data() + o * (n + m) * inner);
        std::copy_n(fresh.data() + o * m * inner, m * inner,
                    grown.data() + (o * (n + m) + n) * inner);
    }
    cached = std::move(grown);
}

std::vector<std::int64_t> positionsFrom(std::int64_t first, std::int64_t count)
{
    std::vector<std::int64_t> p(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        p[static_cast<std::size_t>(i)] = first + i;
    return p;
}

std::string expectedRows(const char* what, Eigen::Index rows, const std::string& why)
{
    return std::string(what) + " has " + str(rows) + " rows; expected " + why;
}

} // namespace

MultiHeadAttention::MultiHeadAttention(AttentionWeights weights, AttentionDescription description)
    : m_weights(std::move(weights))
    , m_description(std::move(description))
{
    const AttentionWeights& w = m_weights;
    const AttentionDescription& d = m_description;
    const std::pair<const RowMatrix*, const char*> all[] = {
        {&w.wQ, "w_q"}, {&w.wK, "w_k"}, {&w.wV, "w_v"}, {&w.wO, "w_o"}};
    for (const auto& [m, name] : all)
        if (m->rows() == 0 || m->cols() == 0)
            throw InputError(std::string(name) + " has shape " + shapeOf(*m) +
                             "; every dimension must be at least 1");
    checkDescription(d);
    const std::int64_t H = d.queryHeads, Hkv = d.keyValueHeads, Pqk = d.queryKeySize,
                       Pv = d.valueSize;
    if (w.wQ.rows() != H * Pqk)
        throw InputError(
            expectedRows("w_q", w.wQ.rows(),
                         str(H * Pqk) + " (" + str(H) + " query heads of " + str(Pqk) + ")"));
    if (w.wK.rows() != Hkv * Pqk)
        throw InputError(expectedRows(
            "w_k", w.wK.rows(),
            Hkv == H ? str(w.wQ.rows()) + " like w_q, since queries and keys meet in a dot product"
                     : str(Hkv * Pqk) + " (" + str(Hkv) + " K/V heads of " + str(Pqk) +
                    ", the query heads' size, since queries and keys meet in a dot product)"));
    if (w.wV.rows() != Hkv * Pv)
        throw InputError(expectedRows(
            "w_v", w.wV.rows(), str(Hkv * Pv) + " (" + str(Hkv) + " heads of " + str(Pv) + ")"));
    if (w.wO.cols() != H * Pv)
        throw InputError("w_o has " + str(w.wO.cols()) + " columns; expected " + str(H * Pv) +
                         (Hkv == H ? std::string(" (the rows of w_v, all heads concatenated)")
                                   : " (" + str(H) + " query heads' contexts of " + str(Pv) +
                                  ", concatenated)"));
    checkBias(w.bQ, "b_q", w.wQ.rows(), "the rows of w_q");
    checkBias(w.bK, "b_k", w.wK.rows(), "the rows of w_k");
    checkBias(w.bV, "b_v", w.wV.rows(), "the rows of w_v");
    checkBias(w.bO, "b_o", w.wO.rows(), "the rows of w_o");
}

MultiHeadAttention MultiHeadAttention::describedAs(AttentionDescription description) const
{
    return MultiHeadAttention(m_weights, std::move(description));
}

AttentionMask MultiHeadAttention::maskInForce(const AttentionMask& mask) const
{
    return mask.combinedWith(m_description.mask.causal, m_description.mask.slidingWindow);
}

AttentionMask MultiHeadAttention::checkInputs(const Tensor& query, const Tensor& key,
                                              const Tensor& value, const AttentionMask& mask,
                                              const AttentionOptions& options) const
{
    checkInput(query, "query", "Nq", "Dq", queryInputSize(), "w_q");
    checkInput(key, "key", "Nk", "Dk", keyInputSize(), "w_k");
    checkInput(value, "value", "Nk", "Dv", valueInputSize(), "w_v");
    const std::int64_t B = query.dim(0), Nq = query.dim(1), Nk = key.dim(1);
    if (key.dim(0) != B)
        throw InputError("key has batch size " + str(key.dim(0)) + "; expected " + str(B) +
                         " like query");
    if (value.dim(0) != B)
        throw InputError("value has batch size " + str(value.dim(0)) + "; expected " + str(B) +
                         " like query");
    if (value.dim(1) != Nk)
        throw InputError("value has " + str(value.dim(1)) + " tokens; expected " + str(Nk) +
                         " like key, since each key has one value");
    AttentionMask inForce = maskInForce(mask);
    const ResolvedMask check(inForce, B, Nq, Nk); // throws when the mask does not fit
    const std::int64_t H = numHeads();
    for (const int h : options.ablatedHeads)
        if (h < 0 || h >= H)
            throw InputError("head " + std::to_string(h) +
                             " cannot be switched off; the module has heads 0–" + str(H - 1));
    const auto checkPositions = [](const std::vector<std::int64_t>& p, const char* name,
                                   std::int64_t expected, const char* shape) {
        if (p.empty())
            return;
        if (static_cast<std::int64_t>(p.size()) != expected)
            throw InputError(std::string(name) + " holds " + str(std::ssize(p)) +
                             " positions; expected " + str(expected) + " " + shape);
        for (const std::int64_t v : p)
            if (v < 0 || v > kMaxPosition)
                throw InputError(std::string(name) + " holds position " + str(v) +
                                 "; expected 0 to " + str(kMaxPosition));
    };
    checkPositions(options.positions.query, "query_positions", B * Nq, "([B, Nq])");
    checkPositions(options.positions.key, "key_positions", B * Nk, "([B, Nk])");
    return inForce;
}

void MultiHeadAttention::startTrace(const Tensor& query, const Tensor& key,
                                    const AttentionOptions& options, AttentionTrace& t) const
{
    t.description = m_description;
    t.sizes = {query.dim(0),       numHeads(),     query.dim(1), key.dim(1),
               numKeyValueHeads(), queryKeySize(), valueSize(),
               m_description.onlineSoftmaxTiles(key.dim(1))};
    t.ablatedHeads = options.ablatedHeads;
}

void MultiHeadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const AttentionMask& mask, AttentionTrace& t,
                                 const AttentionOptions& options) const
{
    const AttentionMask inForce = checkInputs(query, key, value, mask, options);
    const ResolvedMask resolved(inForce, query.dim(0), query.dim(1), key.dim(1));
    const StageInputs in{m_description,     m_weights,           query, key, value, resolved,
                         options.positions, options.ablatedHeads};
    startTrace(query, key, options, t);

    // Everything up to the concatenation is needed to compute; what is not kept is dropped at
    // the end.
    if (multiplyAddsOf(in) <= kExactPassLimit) {
        forwardExactly(in, t);
    } else {
        projectSplitRotate(in, t);
        attend(in, options.keep, t);
        stages::concat(in, t);
        stages::output(in, t);
        requireFinite(t.output, "output");
    }
    dropUnkept(options.keep, t);
}

void MultiHeadAttention::forwardWithCache(const Tensor& tokens, KeyValueCache& cache,
                                          AttentionTrace& t, const AttentionOptions& options) const
{
    const AttentionDescription& d = m_description;
    if (!d.mask.causal)
        throw InputError("a KV cache serves causal self-attention; without a causal mask a query "
                         "would read keys of tokens not yet read");
    if (queryInputSize() != keyInputSize() || queryInputSize() != valueInputSize())
        throw InputError("a KV cache serves self-attention; this module reads keys of width " +
                         str(keyInputSize()) + " and queries of width " + str(queryInputSize()));
    if (!options.positions.query.empty() || !options.positions.key.empty())
        throw InputError("a cached step takes its positions from the cache; expected none given");
    checkInput(tokens, "tokens", "m", "D", queryInputSize(), "w_q");
    if (tokens.dim(0) != 1)
        throw InputError("a KV cache holds one sequence; the tokens have batch size " +
                         str(tokens.dim(0)) + ", expected 1");
    const std::int64_t n = cache.tokens(), m = tokens.dim(1), N = n + m;
    const std::int64_t kWidth = numKeyValueHeads() * queryKeySize();
    if (n > 0 && (cache.kProj.dim(2) != kWidth ||
                  cache.vProj.dim(2) != numKeyValueHeads() * valueSize() ||
                  (d.rotary.has_value() != (cache.kRotated.rank() != 0))))
        throw InputError("the KV cache was filled by a module of another shape; expected keys of "
                         "width " + str(kWidth) + (d.rotary ? ", turned" : ""));
    if (N - 1 > kMaxPosition)
        throw InputError("the KV cache holds " + str(n) + " tokens; positions stop at " +
                         str(kMaxPosition));
    for (const int h : options.ablatedHeads)
        if (h < 0 || h >= numHeads())
            throw InputError("head " + std::to_string(h) +
                             " cannot be switched off; the module has heads 0–" + str(numHeads() - 1));

    // The new tokens alone: projected, split and turned at their own positions.
    AttentionOptions fresh = options;
    fresh.positions = {positionsFrom(n, m), positionsFrom(n, m)};
    const ResolvedMask none(AttentionMask{}, 1, m, m);
    const StageInputs newTokens{d, m_weights, tokens, tokens, tokens, none, fresh.positions,
                                options.ablatedHeads};
    AttentionTrace step;
    startTrace(tokens, tokens, fresh, step);
    projectSplitRotate(newTokens, step);

    // The queries of the new tokens over every key read so far.
    AttentionOptions all = options;
    all.positions = {positionsFrom(n, m), positionsFrom(0, N)};
    AttentionMask offset;
    offset.queryOffset = n;
    const AttentionMask inForce = maskInForce(offset); // the resolved mask refers to it
    const ResolvedMask mask(inForce, 1, m, N);
    const StageInputs in{d, m_weights, tokens, tokens, tokens, mask, all.positions,
                         options.ablatedHeads};
    t.description = d;
    t.sizes = {1, numHeads(), m, N, numKeyValueHeads(), queryKeySize(), valueSize(),
               d.onlineSoftmaxTiles(N)};
    t.ablatedHeads = options.ablatedHeads;
    // The cache grows only once the step has succeeded: a step refused for a value that is not
    // finite leaves it as it was.
    KeyValueCache grown = cache;
    appendKeys(grown.kProj, step.kProj, 1);
    appendKeys(grown.vProj, step.vProj, 1);
    if (d.rotary)
        appendKeys(grown.kRotated, step.kRotated, 2);
    t.qProj = std::move(step.qProj);
    t.kProj = grown.kProj;
    t.vProj = grown.vProj;
    stages::split(in, t);
    if (d.rotary) {
        t.qRotated = std::move(step.qRotated);
        t.kRotated = grown.kRotated;
    }
    attend(in, options.keep, t);
    stages::concat(in, t);
    stages::output(in, t);
    requireFinite(t.output, "output");
    cache = std::move(grown);
    dropUnkept(options.keep, t);
}

AttentionTrace MultiHeadAttention::forward(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const AttentionMask& mask,
                                           const AttentionOptions& options) const
{
    AttentionTrace trace;
    forward(query, key, value, mask, trace, options);
    return trace;
}

void MultiHeadAttention::rerunStagesFrom(AttentionStage from, const Tensor& query,
                                         const Tensor& key, const Tensor& value,
                                         const AttentionMask& mask, const AttentionOptions& options,
                                         AttentionTrace& trace,
                                         std::span<const StageReplacement> replacements) const
{
    const AttentionMask inForce = checkInputs(query, key, value, mask, options);
    const ResolvedMask resolved(inForce, query.dim(0), query.dim(1), key.dim(1));
    const StageInputs in{m_description,     m_weights,           query, key, value, resolved,
                         options.positions, options.ablatedHeads};
    startTrace(query, key, options, trace);
    runStagesFrom(from, in, trace, replacements);
}

AttentionTrace MultiHeadAttention::forwardByStages(
    const Tensor& query, const Tensor& key, const Tensor& value, const AttentionMask& mask,
    const AttentionOptions& options, std::span<const StageReplacement> replacements) const
{
    AttentionTrace trace;
    rerunStagesFrom(AttentionStage::Project, query, key, value, mask, options, trace, replacements);
    return trace;
}

} // namespace attnviz::engine
