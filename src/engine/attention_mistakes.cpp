#include "engine/attention_mistakes.h"

#include "engine/resolved_mask.h"

#include <algorithm>
#include <limits>

namespace attnviz::engine {
namespace {

// The bytes of an explicit per-batch mask that allows exactly what `mask` blocks.
AttentionMask inverted(const ResolvedMask& mask, std::int64_t B, std::int64_t Nq, std::int64_t Nk)
{
    AttentionMask out;
    out.explicitMask = AttentionMask::Explicit{{}, true};
    auto& allowed = out.explicitMask->allowed;
    allowed.reserve(static_cast<std::size_t>(B * Nq * Nk));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            for (std::int64_t j = 0; j < Nk; ++j)
                allowed.push_back(mask.blocked(b, i, j) ? 1 : 0);
    return out;
}

// `.view(B, H, N, P)` of a contiguous [B, N, H·P] tensor: the same numbers in the same order.
template <typename S> void viewAs(const BasicTensor<S>& from, BasicTensor<S>& to)
{
    std::copy(from.values().begin(), from.values().end(), to.values().begin());
}

// What the mask stage reads: the scores as they are by then (scaled, capped, biased).
template <typename S>
const BasicTensor<S>& maskInput(const StageInputs& in, const BasicAttentionTrace<S>& t)
{
    return t.step(latestStep(StepStream::Score, AttentionStage::Mask, in.description));
}

// The mask stage's input with the cells `mask` blocks set to `fill`.
template <typename S>
void fillBlocked(const StageInputs& in, BasicAttentionTrace<S>& t, const ResolvedMask& mask, S fill)
{
    t.masked = maskInput(in, t);
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            auto out = t.masked.matrix({b, h});
            for (Eigen::Index i = 0; i < out.rows(); ++i)
                for (Eigen::Index j = 0; j < out.cols(); ++j)
                    if (mask.blocked(b, i, j))
                        out(i, j) = fill;
        }
}

// The softmax of every row (or, `overQueries`, every column) of the masked scores, by the
// engine's one softmax (stages::softmaxRow), without the module's sinks.
template <typename S> void softmaxOf(BasicAttentionTrace<S>& t, bool overQueries, bool guarded)
{
    t.weights = t.masked;
    typename RowBlock<S>::Scratch scratch;
    Eigen::Matrix<S, Eigen::Dynamic, 1> line;
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            auto w = t.weights.matrix({b, h});
            const Eigen::Index lines = overQueries ? w.cols() : w.rows();
            for (Eigen::Index k = 0; k < lines; ++k) {
                if (overQueries)
                    line = w.col(k);
                else
                    line = w.row(k).transpose();
                stages::softmaxRow<S>(line.data(), line.data(), 0, line.size(), std::nullopt,
                                      guarded, scratch);
                if (overQueries)
                    w.col(k) = line;
                else
                    w.row(k) = line.transpose();
            }
        }
}

} // namespace

namespace mistaken {

template <typename S> void splitTokens(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    stages::split(in, t); // for the shapes
    viewAs(t.qProj, t.qHeads);
    viewAs(t.kProj, t.kHeads);
    viewAs(t.vProj, t.vHeads);
}

template <typename S> void scaleByOne(const StageInputs&, BasicAttentionTrace<S>& t)
{
    t.scaled = t.scores;
}

template <typename S> void softmaxOverQueries(const StageInputs&, BasicAttentionTrace<S>& t)
{
    softmaxOf(t, true, true);
}

template <typename S> void maskNothing(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    t.masked = maskInput(in, t);
}

template <typename S> void softmaxThenMask(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    softmaxOf(t, false, true);
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            for (Eigen::Index i = 0; i < t.queryLength(); ++i)
                for (Eigen::Index j = 0; j < t.keyLength(); ++j)
                    if (in.mask.blocked(b, i, j))
                        t.weights.matrix({b, h})(i, j) = S(0);
}

template <typename S> void invertMask(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    const AttentionMask flipped = inverted(in.mask, t.batchSize(), t.queryLength(), t.keyLength());
    fillBlocked(in, t, ResolvedMask(flipped, t.batchSize(), t.queryLength(), t.keyLength()),
                -std::numeric_limits<S>::infinity());
}

template <typename S> void fillWithTinyNumber(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    // The float 1e-9 of the PyTorch code, whatever the pass computes in.
    fillBlocked(in, t, in.mask, static_cast<S>(1e-9f));
}

template <typename S> void fillWithMinus1e9(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    fillBlocked(in, t, in.mask, static_cast<S>(-1e9f));
}

template <typename S> void softmaxWithoutGuard(const StageInputs&, BasicAttentionTrace<S>& t)
{
    softmaxOf(t, false, false);
}

template <typename S> void concatWithoutTranspose(const StageInputs& in, BasicAttentionTrace<S>& t)
{
    stages::concat(in, t); // for the shape and the switched-off heads' zero columns
    viewAs(t.context, t.concat);
    const std::int64_t p = t.context.dim(3);
    for (const int h : in.ablatedHeads)
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            t.concat.matrix({b}).middleCols(h * p, p).setZero();
}

template <typename S> void outputIsConcat(const StageInputs&, BasicAttentionTrace<S>& t)
{
    t.output = t.concat;
}

#define ATTNVIZ_MISTAKES_IN(S)                                                                     \
    template void splitTokens<S>(const StageInputs&, BasicAttentionTrace<S>&);                     \
    template void scaleByOne<S>(const StageInputs&, BasicAttentionTrace<S>&);                      \
    template void softmaxOverQueries<S>(const StageInputs&, BasicAttentionTrace<S>&);              \
    template void maskNothing<S>(const StageInputs&, BasicAttentionTrace<S>&);                     \
    template void softmaxThenMask<S>(const StageInputs&, BasicAttentionTrace<S>&);                 \
    template void invertMask<S>(const StageInputs&, BasicAttentionTrace<S>&);                      \
    template void fillWithTinyNumber<S>(const StageInputs&, BasicAttentionTrace<S>&);              \
    template void fillWithMinus1e9<S>(const StageInputs&, BasicAttentionTrace<S>&);                \
    template void softmaxWithoutGuard<S>(const StageInputs&, BasicAttentionTrace<S>&);             \
    template void concatWithoutTranspose<S>(const StageInputs&, BasicAttentionTrace<S>&);          \
    template void outputIsConcat<S>(const StageInputs&, BasicAttentionTrace<S>&);

ATTNVIZ_MISTAKES_IN(float)
ATTNVIZ_MISTAKES_IN(double)

#undef ATTNVIZ_MISTAKES_IN

} // namespace mistaken

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

AttentionStage firstReplacedStage(const AttentionMistakeInfo& info)
{
    AttentionStage first = info.replaced[0].stage;
    for (const StageReplacement& r : info.replaced)
        if (r.inFloat && r.stage < first)
            first = r.stage;
    return first;
}

AttentionStep firstWrongStep(const AttentionMistakeInfo& info)
{
    const AttentionStage stage = firstReplacedStage(info);
    for (const AttentionStepInfo& step : kAttentionStepTable)
        if (step.stage == stage)
            return step.step;
    return AttentionStep::Output;
}

MistakenPass forwardWithMistake(const MultiHeadAttention& attention, const Tensor& query,
                                const Tensor& key, const Tensor& value, const AttentionMask& mask,
                                AttentionMistake mistake, const AttentionOptions& options)
{
    const AttentionMistakeInfo& info = mistakeInfo(mistake);
    AttentionOptions everything = options;
    everything.keep = AttentionKeep::all();
    MistakenPass pass{attention.forward(query, key, value, mask, everything), {}};
    std::vector<StageReplacement> replacements;
    for (const StageReplacement& r : info.replaced)
        if (r.inFloat)
            replacements.push_back(r);
    attention.rerunStagesFrom(firstReplacedStage(info), query, key, value, mask, everything,
                              pass.trace, replacements);
    // The rows the mistaken mask left with nothing to see.
    pass.trace.fullyMaskedRows.clear();
    for (std::int64_t b = 0; b < pass.trace.batchSize(); ++b)
        for (std::int64_t i = 0; i < pass.trace.queryLength(); ++i)
            if ((pass.trace.masked.matrix({b, 0}).row(i).array() ==
                 -std::numeric_limits<float>::infinity())
                    .all())
                pass.trace.fullyMaskedRows.push_back({b, i});

    const AttentionMask inForce = attention.maskInForce(mask);
    switch (info.applied) {
    case AppliedMask::Given:
        pass.appliedMask = inForce;
        break;
    case AppliedMask::None:
        break;
    case AppliedMask::Inverted:
        pass.appliedMask = inverted(ResolvedMask(inForce, query.dim(0), query.dim(1), key.dim(1)),
                                    query.dim(0), query.dim(1), key.dim(1));
        break;
    }
    return pass;
}

} // namespace attnviz::engine
