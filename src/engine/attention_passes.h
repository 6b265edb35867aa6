#pragma once

#include "engine/attention_stages.h"
#include "engine/attention_trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace attnviz::engine {

/// The multiply-adds of one forward pass (projections, scores, context, output projection):
/// what decides whether it is computed exactly.
std::int64_t multiplyAddsOf(const StageInputs& in);

/// Passes up to this many multiply-adds are computed exactly: every example a lesson or a
/// reference case holds, in about a millisecond (docs/performance.md, "Exactness").
inline constexpr std::int64_t kExactPassLimit = std::int64_t{1} << 22;

/// The path a pass over these inputs takes: `asked`, or for Automatic the exact pass up to
/// kExactPassLimit multiply-adds and the fused one above.
AttentionPath resolvedPath(AttentionPath asked, const StageInputs& in);

/// Runs the stages of the table from `from` on (`from` = Project: the whole pass), up to but not
/// including `before` when given, over `trace`, whose sizes and description are set and whose
/// steps before `from` are filled, on `path` (not Automatic):
///  * Exact: the stages in double over whole tensors (the filled steps widened), every step
///    rounded into the trace at the end, so each value is the float nearest its exact value,
///    which no float32 computation of the same step can beat (PyTorch's included);
///  * ByStages: the stages in float over whole tensors, one after the other;
///  * Fused: the stages in float, Scores … Context one block of 64 query rows after the other
///    on the engine's threads, in scratch that stays in the cache; the score-shaped steps `keep`
///    does not ask for never exist whole, and a stage whose steps are only for the trace runs
///    only when they are kept.
/// Every path fills every step the module has except those Fused does not keep; the caller
/// drops what is not kept. Throws NonFiniteError at the first step whose values stop being
/// finite (as floats).
void runPass(AttentionPath path, AttentionStage from, const StageInputs& in,
             const AttentionKeep& keep, AttentionTrace& trace,
             std::optional<AttentionStage> before = std::nullopt);

/// Runs the stages from `from` on again over `trace`, a trace `path` made, with `replacements`
/// (a common mistake) and whatever values come out: in double when `path` is Exact (the steps
/// before `from` widened), else stage by stage in float.
void rerunPass(AttentionPath path, AttentionStage from, const StageInputs& in,
               std::span<const StageReplacement> replacements, AttentionTrace& trace);

/// The query rows whose keys are all blocked, in (batch, query) order.
std::vector<MaskedRow> fullyMaskedRows(const StageInputs& in);

} // namespace attnviz::engine
