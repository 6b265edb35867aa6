#include "engine/multi_head_attention.h"

#include "engine/input_error.h"
#include "engine/resolved_mask.h"

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
    return "[" + str(m.rows()) + ", " + str(m.cols()) + "]";
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

// y = x Wᵀ (+ b) for all batch items at once: the batch and token axes are contiguous, so the
// projection is one matrix product over B·N rows.
void project(const Tensor& x, const RowMatrix& w, const std::optional<Eigen::RowVectorXf>& b,
             Tensor& y)
{
    const Eigen::Index rows = x.dim(0) * x.dim(1);
    ConstMatrixView in(x.data(), rows, x.dim(2));
    MatrixView out(y.data(), rows, w.rows());
    out.noalias() = in * w.transpose();
    if (b)
        out.rowwise() += *b;
}

// [batch, token, H·P] -> [batch, head, token, P]: head h owns feature columns [h·P, (h+1)·P).
// Copies are spread over the threads too: at 1024 tokens they take as long as a small product.
void splitHeads(const Tensor& projected, std::int64_t heads, Tensor& split)
{
    const Eigen::Index p = split.dim(3);
    const std::int64_t tasks = split.dim(0) * heads;
#pragma omp parallel for schedule(static)
    for (std::int64_t task = 0; task < tasks; ++task)
        split.matrix({task / heads, task % heads}) =
            projected.matrix({task / heads}).middleCols((task % heads) * p, p);
}

// The inverse of splitHeads.
void concatHeads(const Tensor& split, std::int64_t heads, Tensor& joined)
{
    const Eigen::Index p = split.dim(3);
    const std::int64_t tasks = split.dim(0) * heads;
#pragma omp parallel for schedule(static)
    for (std::int64_t task = 0; task < tasks; ++task)
        joined.matrix({task / heads}).middleCols((task % heads) * p, p) =
            split.matrix({task / heads, task % heads});
}

// One block's worth of the four score-shaped steps, in a buffer of its own. Every block is
// computed here, whether its steps are kept or not, and copied into the trace afterwards when
// they are: Eigen's vectorised loops treat a row's unaligned head and tail with scalar code, so
// computing in place would make the last bit of a result depend on where the row sits in memory
// (and a trace that keeps a step would differ from one that recomputes it).
// Its rows start 64-byte aligned (a stride rounded up to 16 floats), so every row is treated
// the same way by the vectorised code.
struct BlockRows {
    float* scores;
    float* scaled;
    float* masked;
    float* weights;
    Eigen::Index stride;
};

using BlockView = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstBlockView = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

// Which score-shaped steps the trace keeps: what attendBlock must fill beyond what the weights
// need.
struct KeptScoreSteps {
    bool scores = false, scaled = false, masked = false, weights = false;
};

// Pass 2 for the query rows [r0, r0 + rows) of one head (the formula's names: S = Q Kᵀ,
// A = softmax(mask(S / √d_k)), C = A V).
//
// Keys that every row of the block has blocked by the causal or length mask (from `cols`, the
// largest row limit, on) get weight 0, so the weights and the context need only the first `cols`
// columns of S: with a causal mask that halves the attention products. The other columns of
// scores and scaled are computed by a second product only when the trace keeps those steps, so
// the first columns, and with them weights and context, are the same bits whatever is kept (a
// recomputed layer equals a kept one).
void attendBlock(AttentionTrace& t, const ResolvedMask& mask, std::int64_t b, std::int64_t h,
                 Eigen::Index r0, Eigen::Index rows, float scale, const BlockRows& out,
                 const KeptScoreSteps& kept)
{
    const Eigen::Index nk = t.kHeads.dim(2);
    const auto Q = std::as_const(t.qHeads).matrix({b, h}).middleRows(r0, rows);
    const ConstMatrixView K = std::as_const(t.kHeads).matrix({b, h});
    const ConstMatrixView V = std::as_const(t.vHeads).matrix({b, h});

    Eigen::Index cols = 0;
    for (Eigen::Index r = 0; r < rows; ++r)
        cols = std::max(cols, std::clamp<Eigen::Index>(mask.row(b, r0 + r).limit, 0, nk));
    const bool wholeRows = kept.scores || kept.scaled;

    const Eigen::OuterStride<> stride(out.stride);
    BlockView S(out.scores, rows, nk, stride);
    // pass 2a: raw scores of the block
    S.leftCols(cols).noalias() = Q * K.topRows(cols).transpose();
    if (wholeRows && cols < nk)
        S.rightCols(nk - cols).noalias() = Q * K.bottomRows(nk - cols).transpose();

    // pass 2b: per query row, scale, block, and softmax over keys with the row max subtracted
    for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::Index i = r0 + r;
        auto scaled = BlockView(out.scaled, rows, nk, stride).row(r).array();
        auto masked = BlockView(out.masked, rows, nk, stride).row(r).array();
        auto weights = BlockView(out.weights, rows, nk, stride).row(r).array();
        scaled.head(cols) = S.row(r).head(cols).array() * scale;
        if (kept.scaled)
            scaled.tail(nk - cols) = S.row(r).tail(nk - cols).array() * scale;
        masked.head(cols) = scaled.head(cols);

        const ResolvedMask::Row keep = mask.row(b, i);
        const Eigen::Index limit = std::clamp<Eigen::Index>(keep.limit, 0, nk);
        masked.segment(limit, cols - limit).setConstant(kBlocked);
        if (kept.masked)
            masked.tail(nk - cols).setConstant(kBlocked);
        if (keep.allowed)
            for (Eigen::Index j = 0; j < limit; ++j)
                if (keep.allowed[j] == 0)
                    masked(j) = kBlocked;

        weights.tail(nk - cols).setZero();
        const float rowMax = limit > 0 ? masked.head(limit).maxCoeff() : kBlocked;
        if (rowMax == kBlocked) {
            // Every key blocked: softmax would be 0/0. Such a query attends to nothing.
            weights.head(cols).setZero();
            continue;
        }
        weights.head(cols) = (masked.head(cols) - rowMax).exp();
        // Eigen's vectorised exp clamps its argument and returns a denormal for −∞, not 0: make
        // blocked weights exactly zero, as the softmax of −∞ is.
        weights.segment(limit, cols - limit).setZero();
        if (keep.allowed)
            for (Eigen::Index j = 0; j < limit; ++j)
                if (keep.allowed[j] == 0)
                    weights(j) = 0.0f;
        // The row sum in a fixed order, in double: Eigen's vectorised sum peels unaligned
        // elements first, so its rounding would depend on where the row sits in memory, and a
        // step kept in the trace would differ from the same step computed in scratch.
        double sum = 0;
        for (Eigen::Index j = 0; j < limit; ++j)
            sum += weights(j);
        weights.head(limit) *= static_cast<float>(1.0 / sum);
    }

    // pass 2c: context rows are the weighted sums of the value rows (blocked keys weigh 0)
    t.context.matrix({b, h}).middleRows(r0, rows).noalias() =
        ConstBlockView(out.weights, rows, nk, stride).leftCols(cols) * V.topRows(cols);
}

// Copies a block's rows of one step into the trace.
void keepRows(Tensor& t, std::int64_t b, std::int64_t h, Eigen::Index r0, Eigen::Index rows,
              const float* block, Eigen::Index stride)
{
    t.matrix({b, h}).middleRows(r0, rows) =
        ConstBlockView(block, rows, t.dim(3), Eigen::OuterStride<>(stride));
}

} // namespace

MultiHeadAttention::MultiHeadAttention(AttentionWeights weights, int numHeads)
    : m_weights(std::move(weights))
    , m_numHeads(numHeads)
{
    const AttentionWeights& w = m_weights;
    if (numHeads < 1)
        throw InputError("num_heads is " + std::to_string(numHeads) + "; expected at least 1");
    const std::pair<const RowMatrix*, const char*> all[] = {
        {&w.wQ, "w_q"}, {&w.wK, "w_k"}, {&w.wV, "w_v"}, {&w.wO, "w_o"}};
    for (const auto& [m, name] : all)
        if (m->rows() == 0 || m->cols() == 0)
            throw InputError(std::string(name) + " has shape " + shapeOf(*m) +
                             "; every dimension must be at least 1");
    if (w.wQ.rows() % numHeads != 0)
        throw InputError("w_q has " + str(w.wQ.rows()) + " rows, which " + str(numHeads) +
                         " heads cannot share equally; expected a multiple of num_heads");
    if (w.wK.rows() != w.wQ.rows())
        throw InputError("w_k has " + str(w.wK.rows()) + " rows; expected " + str(w.wQ.rows()) +
                         " like w_q, since queries and keys meet in a dot product");
    if (w.wV.rows() % numHeads != 0)
        throw InputError("w_v has " + str(w.wV.rows()) + " rows, which " + str(numHeads) +
                         " heads cannot share equally; expected a multiple of num_heads");
    if (w.wO.cols() != w.wV.rows())
        throw InputError("w_o has " + str(w.wO.cols()) + " columns; expected " + str(w.wV.rows()) +
                         " (the rows of w_v, all heads concatenated)");
    checkBias(w.bQ, "b_q", w.wQ.rows(), "the rows of w_q");
    checkBias(w.bK, "b_k", w.wK.rows(), "the rows of w_k");
    checkBias(w.bV, "b_v", w.wV.rows(), "the rows of w_v");
    checkBias(w.bO, "b_o", w.wO.rows(), "the rows of w_o");
}

void MultiHeadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const AttentionMask& mask, AttentionTrace& t,
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
    const ResolvedMask resolved(mask, B, Nq, Nk);
    const std::int64_t H = m_numHeads, Pqk = queryKeySize(), Pv = valueSize();
    for (const int h : options.ablatedHeads)
        if (h < 0 || h >= H)
            throw InputError("head " + std::to_string(h) +
                             " cannot be switched off; the module has heads 0–" + str(H - 1));
    if (options.scoreDivisor &&
        !(std::isfinite(*options.scoreDivisor) && *options.scoreDivisor > 0))
        throw InputError("the scores' divisor is " + std::to_string(*options.scoreDivisor) +
                         "; expected a positive number");

    // Everything up to the concatenation is needed to compute; what is not kept is dropped at
    // the end. Score-shaped steps that are not kept never exist in full (see BlockRows).
    const AttentionKeep& keep = options.keep;
    t.qProj.reshape({{"batch", B}, {"query", Nq}, {"feature", H * Pqk}});
    t.kProj.reshape({{"batch", B}, {"key", Nk}, {"feature", H * Pqk}});
    t.vProj.reshape({{"batch", B}, {"key", Nk}, {"feature", H * Pv}});
    t.qHeads.reshape({{"batch", B}, {"head", H}, {"query", Nq}, {"d_k", Pqk}});
    t.kHeads.reshape({{"batch", B}, {"head", H}, {"key", Nk}, {"d_k", Pqk}});
    t.vHeads.reshape({{"batch", B}, {"head", H}, {"key", Nk}, {"d_v", Pv}});
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (info.scoreShaped) {
            if (keep.has(info.step))
                (t.*info.field).reshape({{"batch", B}, {"head", H}, {"query", Nq}, {"key", Nk}});
            else
                t.*info.field = Tensor();
        }
    t.context.reshape({{"batch", B}, {"head", H}, {"query", Nq}, {"d_v", Pv}});
    t.concat.reshape({{"batch", B}, {"query", Nq}, {"feature", H * Pv}});
    t.output.reshape({{"batch", B}, {"query", Nq}, {"feature", outputSize()}});
    t.sizes = {B, H, Nq, Nk, Pqk, Pv};
    t.ablatedHeads = options.ablatedHeads;

    t.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            if (resolved.rowFullyBlocked(b, i))
                t.fullyMaskedRows.push_back({b, i});

    // pass 1: the three input projections, then their split into heads
    project(query, m_weights.wQ, m_weights.bQ, t.qProj);
    project(key, m_weights.wK, m_weights.bK, t.kProj);
    project(value, m_weights.wV, m_weights.bV, t.vProj);
    splitHeads(t.qProj, m_numHeads, t.qHeads);
    splitHeads(t.kProj, m_numHeads, t.kHeads);
    splitHeads(t.vProj, m_numHeads, t.vHeads);

    // pass 2: heads are independent, so threads take whole heads (Eigen runs the products inside
    // a parallel region on one thread, which is what we want here)
    const float scale =
        1.0f / (options.scoreDivisor ? *options.scoreDivisor : std::sqrt(static_cast<float>(Pqk)));
    const std::int64_t blocksPerHead = (Nq + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t tasks = B * H * blocksPerHead;
    const bool keepScores = keep.has(AttentionStep::Scores),
               keepScaled = keep.has(AttentionStep::Scaled);
    const bool keepMasked = keep.has(AttentionStep::Masked),
               keepWeights = keep.has(AttentionStep::Weights);
    const KeptScoreSteps kept{keepScores, keepScaled, keepMasked, keepWeights};
#pragma omp parallel
    {
        const Eigen::Index stride = (Nk + 15) / 16 * 16;
        RowMatrix scratch(4 * kQueryBlock,
                          stride); // Eigen allocates it aligned for its widest vectors
        const auto part = [&](int k) { return scratch.data() + k * kQueryBlock * stride; };
        const BlockRows block{part(0), part(1), part(2), part(3), stride};
#pragma omp for schedule(static)
        for (std::int64_t task = 0; task < tasks; ++task) {
            const std::int64_t head = task / blocksPerHead, b = head / H, h = head % H;
            const Eigen::Index r0 = (task % blocksPerHead) * kQueryBlock;
            const Eigen::Index rows = std::min<Eigen::Index>(kQueryBlock, Nq - r0);
            attendBlock(t, resolved, b, h, r0, rows, scale, block, kept);
            if (keepScores)
                keepRows(t.scores, b, h, r0, rows, block.scores, stride);
            if (keepScaled)
                keepRows(t.scaled, b, h, r0, rows, block.scaled, stride);
            if (keepMasked)
                keepRows(t.masked, b, h, r0, rows, block.masked, stride);
            if (keepWeights)
                keepRows(t.weights, b, h, r0, rows, block.weights, stride);
        }
    }

    // pass 3: heads side by side (an ablated head's columns stay zero), then the output projection
    concatHeads(t.context, m_numHeads, t.concat);
    for (const int h : options.ablatedHeads)
        for (std::int64_t b = 0; b < B; ++b)
            t.concat.matrix({b}).middleCols(h * Pv, Pv).setZero();
    project(t.concat, m_weights.wO, m_weights.bO, t.output);

    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (!keep.has(info.step) && info.step != AttentionStep::Output)
            t.*info.field = Tensor();
}

AttentionTrace MultiHeadAttention::forward(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const AttentionMask& mask,
                                           const AttentionOptions& options) const
{
    AttentionTrace trace;
    forward(query, key, value, mask, trace, options);
    return trace;
}

} // namespace attnviz::engine
