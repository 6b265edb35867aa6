#pragma once

#include "engine/attention_stages.h"

#include <cstdint>

namespace attnviz::engine {

/// The multiply-adds of one forward pass (projections, scores, context, output projection):
/// what decides whether it is computed exactly.
std::int64_t multiplyAddsOf(const StageInputs& in);

/// Passes up to this many multiply-adds are computed by forwardExactly: every example a lesson
/// or a reference case holds, in about a millisecond (docs/performance.md, "Exactness").
inline constexpr std::int64_t kExactPassLimit = std::int64_t{1} << 22;

/// Stages Project … Output in double: each step from the previous steps' unrounded values, as a
/// float64 reference computes them from the float inputs and weights, and rounded to float only
/// when the trace keeps it. So every value of the trace is the float nearest its exact value,
/// which no float32 computation of the same step can beat (PyTorch's included). Larger passes
/// take the float fast path (multi_head_attention.cpp), whose products still sum more exactly
/// than a float chain (accurate_product.h). Values that stop being finite when rounded to float
/// are refused as the fast path refuses them (non_finite.h). Fills every step the module has;
/// the caller drops what is not kept.
void forwardExactly(const StageInputs& in, AttentionTrace& t);

} // namespace attnviz::engine
