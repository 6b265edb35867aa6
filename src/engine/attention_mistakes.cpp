#include "engine/attention_mistakes.h"

#include "engine/resolved_mask.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz::engine {
namespace {

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

// The bytes of an explicit per-batch mask that allows exactly what `mask` blocks.
AttentionMask inverted(const AttentionMask& mask, std::int64_t B, std::int64_t Nq, std::int64_t Nk)
{
    const ResolvedMask resolved(mask, B, Nq, Nk);
    AttentionMask out;
    out.explicitMask = AttentionMask::Explicit{{}, true};
    auto& allowed = out.explicitMask->allowed;
    allowed.reserve(static_cast<std::size_t>(B * Nq * Nk));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            for (std::int64_t j = 0; j < Nk; ++j)
                allowed.push_back(resolved.blocked(b, i, j) ? 1 : 0);
    return out;
}

// `.view(B, H, N, P)` of a contiguous [B, N, H·P] tensor: the same numbers in the same order.
void viewAs(const Tensor& from, Tensor& to)
{
    std::copy(from.values().begin(), from.values().end(), to.values().begin());
}

void recomputeScores(AttentionTrace& t)
{
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            t.scores.matrix({b, h}).noalias() =
                t.qHeads.matrix({b, h}) * t.kHeads.matrix({b, h}).transpose();
}

void scale(AttentionTrace& t, float factor)
{
    std::transform(t.scores.values().begin(), t.scores.values().end(), t.scaled.values().begin(),
                   [factor](float v) { return v * factor; });
}

// Copies scaled into masked with the cells `mask` blocks set to `fill`.
void applyMask(AttentionTrace& t, const AttentionMask& mask, float fill)
{
    const ResolvedMask resolved(mask, t.batchSize(), t.queryLength(), t.keyLength());
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            auto masked = t.masked.matrix({b, h});
            masked = t.scaled.matrix({b, h});
            for (Eigen::Index i = 0; i < masked.rows(); ++i)
                for (Eigen::Index j = 0; j < masked.cols(); ++j)
                    if (resolved.blocked(b, i, j))
                        masked(i, j) = fill;
        }
}

// Softmax of a row or column with its maximum subtracted; all −∞ gives zeros, as in forward(),
// or NaN (0/0) without `guarded`, as plain PyTorch does.
template <typename Vector> void softmaxInPlace(Vector v, bool guarded)
{
    const float top = v.maxCoeff();
    if (top == kBlocked) {
        v.setConstant(guarded ? 0.0f : std::numeric_limits<float>::quiet_NaN());
        return;
    }
    double sum = 0;
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        v(k) = v(k) == kBlocked ? 0.0f : std::exp(v(k) - top);
        sum += v(k);
    }
    v *= static_cast<float>(1.0 / sum);
}

void softmax(AttentionTrace& t, bool overQueries, bool guarded = true)
{
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            auto w = t.weights.matrix({b, h});
            w = t.masked.matrix({b, h});
            if (overQueries)
                for (Eigen::Index j = 0; j < w.cols(); ++j)
                    softmaxInPlace(w.col(j), guarded);
            else
                for (Eigen::Index i = 0; i < w.rows(); ++i)
                    softmaxInPlace(w.row(i), guarded);
        }
}

void zeroBlockedWeights(AttentionTrace& t, const AttentionMask& mask)
{
    const ResolvedMask resolved(mask, t.batchSize(), t.queryLength(), t.keyLength());
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            for (Eigen::Index i = 0; i < t.queryLength(); ++i)
                for (Eigen::Index j = 0; j < t.keyLength(); ++j)
                    if (resolved.blocked(b, i, j))
                        t.weights.matrix({b, h})(i, j) = 0.0f;
}

void recomputeContext(AttentionTrace& t)
{
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            t.context.matrix({b, h}).noalias() = t.weights.matrix({b, h}) * t.vHeads.matrix({b, h});
}

void concatenate(AttentionTrace& t, bool transposeFirst)
{
    if (!transposeFirst) {
        viewAs(t.context, t.concat);
        return;
    }
    const Eigen::Index p = t.valueSize();
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            t.concat.matrix({b}).middleCols(h * p, p) = t.context.matrix({b, h});
}

void project(AttentionTrace& t, const AttentionWeights& w)
{
    for (std::int64_t b = 0; b < t.batchSize(); ++b) {
        auto out = t.output.matrix({b});
        out.noalias() = t.concat.matrix({b}) * w.wO.transpose();
        if (w.bO)
            out.rowwise() += *w.bO;
    }
}

void fullyMaskedRowsFromWeights(AttentionTrace& t)
{
    t.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t i = 0; i < t.queryLength(); ++i)
            if (t.masked.matrix({b, 0}).row(i).maxCoeff() == kBlocked)
                t.fullyMaskedRows.push_back({b, i});
}

} // namespace

const AttentionMistakeInfo& mistakeInfo(AttentionMistake mistake)
{
    return *std::find_if(kAttentionMistakeTable.begin(), kAttentionMistakeTable.end(),
                         [mistake](const auto& info) { return info.mistake == mistake; });
}

std::optional<AttentionMistake> mistakeFromName(std::string_view name)
{
    for (const AttentionMistakeInfo& info : kAttentionMistakeTable)
        if (info.name == name)
            return info.mistake;
    return std::nullopt;
}

MistakenPass forwardWithMistake(const MultiHeadAttention& attention, const Tensor& query,
                                const Tensor& key, const Tensor& value, const AttentionMask& mask,
                                AttentionMistake mistake, const std::vector<int>& ablatedHeads)
{
    using M = AttentionMistake;
    AttentionOptions options;
    options.ablatedHeads = ablatedHeads;
    if (mistake == M::InvertedMask || mistake == M::MaskDiscarded) {
        // Only the mask differs, so the engine's own pass computes the mistake exactly.
        // the real mask and heads must fit before the mask is changed
        attention.forward(query, key, value, mask, options);
        MistakenPass pass;
        if (mistake == M::InvertedMask)
            pass.appliedMask = inverted(mask, query.dim(0), query.dim(1), key.dim(1));
        pass.trace = attention.forward(query, key, value, pass.appliedMask, options);
        return pass;
    }
    MistakenPass pass{attention.forward(query, key, value, mask, options), mask};
    AttentionTrace& t = pass.trace;
    const float divisor = 1.0f / std::sqrt(static_cast<float>(t.queryKeySize()));
    switch (mistake) {
    case M::SplitTokens:
        viewAs(t.qProj, t.qHeads);
        viewAs(t.kProj, t.kHeads);
        viewAs(t.vProj, t.vHeads);
        recomputeScores(t);
        scale(t, divisor);
        applyMask(t, mask, kBlocked);
        softmax(t, false);
        break;
    case M::NoScaling:
        scale(t, 1.0f);
        applyMask(t, mask, kBlocked);
        softmax(t, false);
        break;
    case M::SoftmaxOverQueries:
        softmax(t, true);
        break;
    case M::MaskAfterSoftmax:
        pass.appliedMask = {};
        applyMask(t, pass.appliedMask, kBlocked);
        softmax(t, false);
        zeroBlockedWeights(t, mask);
        break;
    case M::MaskFilledWithTinyNumber:
        pass.appliedMask = {};
        applyMask(t, mask, 1e-9f);
        softmax(t, false);
        break;
    case M::MaskFilledWithMinus1e9:
        pass.appliedMask = {};
        applyMask(t, mask, -1e9f);
        softmax(t, false);
        break;
    case M::FullyMaskedRowsAsNaN:
        softmax(t, false, false);
        break;
    case M::ConcatWithoutTranspose:
    case M::NoOutputProjection:
    case M::InvertedMask:
    case M::MaskDiscarded:
        break;
    }
    if (mistake != M::ConcatWithoutTranspose && mistake != M::NoOutputProjection)
        recomputeContext(t);
    concatenate(t, mistake != M::ConcatWithoutTranspose);
    for (const int h : ablatedHeads)
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            t.concat.matrix({b}).middleCols(h * t.valueSize(), t.valueSize()).setZero();
    if (mistake == M::NoOutputProjection)
        t.output = t.concat;
    else
        project(t, attention.weights());
    fullyMaskedRowsFromWeights(t);
    return pass;
}

} // namespace attnviz::engine
