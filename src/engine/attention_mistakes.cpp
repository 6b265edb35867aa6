#include "engine/attention_mistakes.h"

#include "engine/resolved_mask.h"

#include <algorithm>
#include <limits>

namespace attnviz::engine {
namespace {

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

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
void viewAs(const Tensor& from, Tensor& to)
{
    std::copy(from.values().begin(), from.values().end(), to.values().begin());
}

} // namespace

namespace mistaken {

void splitTokens(const StageInputs& in, AttentionTrace& t)
{
    stages::split(in, t); // for the shapes
    viewAs(t.qProj, t.qHeads);
    viewAs(t.kProj, t.kHeads);
    viewAs(t.vProj, t.vHeads);
}

void scaleByOne(const StageInputs&, AttentionTrace& t)
{
    t.scaled = t.scores;
}

void softmaxOverQueries(const StageInputs&, AttentionTrace& t)
{
    stages::softmaxOf(t.masked, true, true, t.weights);
}

void maskNothing(const StageInputs&, AttentionTrace& t)
{
    t.masked = stages::maskInput(t);
}

void softmaxThenMask(const StageInputs& in, AttentionTrace& t)
{
    stages::softmax(in, t);
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h)
            for (Eigen::Index i = 0; i < t.queryLength(); ++i)
                for (Eigen::Index j = 0; j < t.keyLength(); ++j)
                    if (in.mask.blocked(b, i, j))
                        t.weights.matrix({b, h})(i, j) = 0.0f;
}

void invertMask(const StageInputs& in, AttentionTrace& t)
{
    const AttentionMask flipped = inverted(in.mask, t.batchSize(), t.queryLength(), t.keyLength());
    stages::fillBlocked(t, ResolvedMask(flipped, t.batchSize(), t.queryLength(), t.keyLength()),
                        kBlocked, t.masked);
}

void fillWithTinyNumber(const StageInputs& in, AttentionTrace& t)
{
    stages::fillBlocked(t, in.mask, 1e-9f, t.masked);
}

void fillWithMinus1e9(const StageInputs& in, AttentionTrace& t)
{
    stages::fillBlocked(t, in.mask, -1e9f, t.masked);
}

void softmaxWithoutGuard(const StageInputs&, AttentionTrace& t)
{
    stages::softmaxOf(t.masked, false, false, t.weights);
}

void concatWithoutTranspose(const StageInputs& in, AttentionTrace& t)
{
    stages::concat(in, t); // for the shape and the switched-off heads' zero columns
    viewAs(t.context, t.concat);
    const std::int64_t p = t.context.dim(3);
    for (const int h : in.ablatedHeads)
        for (std::int64_t b = 0; b < t.batchSize(); ++b)
            t.concat.matrix({b}).middleCols(h * p, p).setZero();
}

void outputIsConcat(const StageInputs&, AttentionTrace& t)
{
    t.output = t.concat;
}

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
        if (r.run && r.stage < first)
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
        if (r.run)
            replacements.push_back(r);
    attention.rerunStagesFrom(firstReplacedStage(info), query, key, value, mask, everything,
                              pass.trace, replacements);

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
