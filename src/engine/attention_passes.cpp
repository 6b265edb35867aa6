#include "engine/attention_passes.h"

#include "engine/non_finite.h"

#include <algorithm>
#include <string>
#include <utility>

namespace attnviz::engine {
namespace {

// Rows of one head's score matrix handled together by the fused pass: small enough that the
// block's score-shaped steps stay in L2 between the product that writes them and the softmax
// that reads them, large enough that the products stay efficient.
constexpr Eigen::Index kQueryBlock = 64;

// The steps made before `stage`, in double, for an exact pass that starts there.
void widen(const AttentionTrace& from, AttentionStage stage, BasicAttentionTrace<double>& to)
{
    to.sizes = from.sizes;
    to.description = from.description;
    to.ablatedHeads = from.ablatedHeads;
    for (const AttentionStepInfo& info : kAttentionStepTable) {
        if (info.stage >= stage)
            continue;
        const Tensor& step = from.step(info.step);
        WideTensor& wide = to.step(info.step);
        wide.reshape(step.axes());
        std::copy(step.values().begin(), step.values().end(), wide.values().begin());
    }
}

// Each step the exact pass made, rounded once into the trace.
void round(const BasicAttentionTrace<double>& wide, AttentionStage from, AttentionTrace& t)
{
    for (const AttentionStepInfo& info : kAttentionStepTable) {
        const WideTensor& step = wide.step(info.step);
        if (info.stage < from || step.rank() == 0)
            continue;
        Tensor& out = t.step(info.step);
        out.reshape(step.axes());
        std::transform(step.values().begin(), step.values().end(), out.values().begin(),
                       [](double v) { return static_cast<float>(v); });
    }
}

// The score-shaped steps the trace keeps before the mask: whole rows of them are computed.
bool keepsScoresBeforeTheMask(const AttentionKeep& keep, const AttentionDescription& d)
{
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (info.scoreShaped && info.stage < AttentionStage::Mask && keep.has(info.step) &&
            stepPresent(info.step, d))
            return true;
    return false;
}

// Copies a block's rows of one step into the trace.
void keepRows(Tensor& t, const RowBlock<float>& block, AttentionStep step)
{
    t.matrix({block.b, block.h}).middleRows(block.r0, block.rows) = block.rowsOf(step);
}

// Stages Scores … Context over blocks of query rows: heads and blocks are independent, so
// threads take whole blocks (Eigen runs the products inside a parallel region on one thread,
// which is what we want here). Score-shaped steps that are not kept never exist in full.
void runBlocks(const StageInputs& in, const AttentionKeep& keep, AttentionTrace& t)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = t.batchSize(), H = t.numHeads(), Nq = t.queryLength(),
                       Nk = t.keyLength();
    std::vector<const AttentionStageInfo*> running;
    for (const AttentionStageInfo& info : kAttentionStageTable) {
        if (!info.byBlocks() || !info.present(d))
            continue;
        bool kept = false;
        for (const AttentionStepInfo& step : kAttentionStepTable)
            kept = kept || (step.stage == info.stage && keep.has(step.step));
        if (!info.onlyForTheTrace || kept)
            running.push_back(&info);
    }
    const bool online = std::any_of(running.begin(), running.end(), [](const auto* info) {
        return info->stage == AttentionStage::OnlineSoftmax;
    });
    // Which steps live in a block's scratch (every score-shaped one), and which in the trace.
    std::vector<AttentionStep> inScratch, kept;
    for (const AttentionStepInfo& step : kAttentionStepTable) {
        const bool made = std::any_of(running.begin(), running.end(),
                                      [&](const auto* info) { return info->stage == step.stage; });
        if (!made || !stepPresent(step.step, d))
            continue;
        if (step.scoreShaped) {
            inScratch.push_back(step.step);
            if (keep.has(step.step))
                kept.push_back(step.step);
        }
        if (!step.scoreShaped || keep.has(step.step))
            t.step(step.step).reshape(stepAxes(step.step, t.sizes, in.weights.wO.rows()));
        else
            t.step(step.step) = Tensor();
    }
    const bool wholeRows = keepsScoresBeforeTheMask(keep, d);
    const bool wholeMasked = keep.has(AttentionStep::Masked) || online;

    const std::int64_t blocksPerHead = (Nq + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t tasks = B * H * blocksPerHead;
    std::optional<NonFiniteStep> firstBad; // an exception must not leave the parallel region
#pragma omp parallel
    {
        // Rows 64-byte aligned (a stride rounded up to 16 floats; Eigen aligns the buffer for
        // its widest vectors), so that every row is treated alike by the vectorised code and a
        // result's last bit does not depend on where its row sits.
        const Eigen::Index stride = (Nk + 15) / 16 * 16;
        RowMatrix scratch(static_cast<Eigen::Index>(inScratch.size()) * kQueryBlock, stride);
        RowBlock<float>::Scratch room;
        std::optional<NonFiniteStep> bad;
#pragma omp for schedule(static)
        for (std::int64_t task = 0; task < tasks; ++task) {
            const std::int64_t head = task / blocksPerHead, b = head / H;
            const Eigen::Index r0 = (task % blocksPerHead) * kQueryBlock;
            RowBlock<float> block = rowBlock<float>(in, b, static_cast<int>(head % H), r0,
                                                    std::min(kQueryBlock, Nq - r0), Nk);
            if (wholeRows) {
                block.front = 0;
                block.back = Nk;
            }
            block.wholeMasked = wholeMasked;
            block.stride = stride;
            for (std::size_t k = 0; k < inScratch.size(); ++k)
                block.at[static_cast<std::size_t>(inScratch[k])] =
                    scratch.data() + static_cast<Eigen::Index>(k) * kQueryBlock * stride;
            block.scratch = &room;
            for (const AttentionStageInfo* info : running) {
                info->inFloat.block(in, t, block);
                if (auto wrong = firstNonFiniteOf(in, t, block, info->stage);
                    wrong && (!bad || wrong->step < bad->step))
                    bad = std::move(wrong);
            }
            for (const AttentionStep step : kept)
                keepRows(t.step(step), block, step);
        }
        if (bad)
#pragma omp critical(attnviz_non_finite)
            if (!firstBad || bad->step < firstBad->step)
                firstBad = std::move(bad);
    }
    if (firstBad)
        throw NonFiniteError(std::string(stepName(firstBad->step)), firstBad->value);
}

} // namespace

std::int64_t multiplyAddsOf(const StageInputs& in)
{
    const AttentionDescription& d = in.description;
    const std::int64_t B = in.query.dim(0), Nq = in.query.dim(1), Nk = in.key.dim(1);
    const AttentionWeights& w = in.weights;
    return B *
        (Nq * w.wQ.size() + Nk * (w.wK.size() + w.wV.size()) + Nq * w.wO.size() +
         d.queryHeads * Nq * Nk * (d.queryKeySize + d.valueSize));
}

AttentionPath resolvedPath(AttentionPath asked, const StageInputs& in)
{
    if (asked != AttentionPath::Automatic)
        return asked;
    return multiplyAddsOf(in) <= kExactPassLimit ? AttentionPath::Exact : AttentionPath::Fused;
}

std::vector<MaskedRow> fullyMaskedRows(const StageInputs& in)
{
    std::vector<MaskedRow> rows;
    for (std::int64_t b = 0; b < in.query.dim(0); ++b)
        for (std::int64_t i = 0; i < in.query.dim(1); ++i)
            if (in.mask.rowFullyBlocked(b, i))
                rows.push_back({b, i});
    return rows;
}

void runPass(AttentionPath path, AttentionStage from, const StageInputs& in,
             const AttentionKeep& keep, AttentionTrace& t, std::optional<AttentionStage> before)
{
    t.path = path;
    t.fullyMaskedRows = fullyMaskedRows(in);
    switch (path) {
    case AttentionPath::Exact: {
        BasicAttentionTrace<double> wide;
        widen(t, from, wide);
        runStagesFrom<double>(from, in, wide, {}, before);
        round(wide, from, t);
        return;
    }
    case AttentionPath::ByStages:
        runStagesFrom<float>(from, in, t, {}, before);
        return;
    case AttentionPath::Fused: {
        const auto reaches = [&](AttentionStage s) {
            return s >= from && (!before || s < *before);
        };
        runStagesFrom<float>(from, in, t, {}, std::max(from, AttentionStage::Scores));
        if (reaches(AttentionStage::Scores) && reaches(AttentionStage::Context))
            runBlocks(in, keep, t);
        if (!before || *before > AttentionStage::Concat)
            runStagesFrom<float>(std::max(from, AttentionStage::Concat), in, t, {}, before);
        return;
    }
    case AttentionPath::Automatic:
        break;
    }
    runPass(resolvedPath(path, in), from, in, keep, t, before);
}

void rerunPass(AttentionPath path, AttentionStage from, const StageInputs& in,
               std::span<const StageReplacement> replacements, AttentionTrace& t)
{
    if (path == AttentionPath::Exact) {
        BasicAttentionTrace<double> wide;
        widen(t, from, wide);
        runStagesFrom<double>(from, in, wide, replacements, std::nullopt, NonFinite::Kept);
        round(wide, from, t);
        return;
    }
    runStagesFrom<float>(from, in, t, replacements, std::nullopt, NonFinite::Kept);
}

} // namespace attnviz::engine
