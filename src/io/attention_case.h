#pragma once

#include "engine/attention_mask.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"
#include "io/safetensors.h"

namespace attnviz::io {

/// Everything one multi-head attention run needs: inputs, weights, head count and mask. This is
/// the content of a case file for `attnviz-cli mha` (docs/case-format.md).
struct AttentionCase {
    engine::Tensor query; ///< [B, Nq, Dq]
    engine::Tensor key; ///< [B, Nk, Dk]
    engine::Tensor value; ///< [B, Nk, Dv]
    engine::AttentionWeights weights;
    int numHeads = 0;
    engine::AttentionMask mask;
};

/// Reads a case from a parsed safetensors file. Checks the things a file can get wrong — a missing
/// or misshapen tensor, a wrong dtype, a zero-sized dimension, NaN or ±Inf, a bad metadata value,
/// sizes that disagree — and throws FormatError or engine::InputError with one sentence naming the
/// tensor or field and what was expected.
AttentionCase loadAttentionCase(const SafetensorsFile& file);

} // namespace attnviz::io
