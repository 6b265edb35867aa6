#pragma once

#include "engine/attention_description.h"
#include "engine/attention_mask.h"
#include "engine/attention_stages.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"
#include "io/safetensors.h"

namespace attnviz::io {

/// Everything one multi-head attention run needs: inputs, weights, the module's description,
/// mask and positions. This is the content of a case file for `attnviz-cli mha`
/// (docs/case-format.md).
struct AttentionCase {
    engine::Tensor query; ///< [B, Nq, Dq]
    engine::Tensor key; ///< [B, Nk, Dk]
    engine::Tensor value; ///< [B, Nk, Dv]
    engine::AttentionWeights weights;
    /// Heads, K/V heads, rotary positions and the causal mask with its window, from the metadata.
    engine::AttentionDescription description;
    /// Valid lengths and an explicit mask, from the tensors.
    engine::AttentionMask mask;
    engine::TokenPositions positions;
};

/// Reads a case from a parsed safetensors file. Checks the things a file can get wrong — a missing
/// or misshapen tensor, a wrong dtype, a zero-sized dimension, NaN or ±Inf, a bad metadata value,
/// sizes that disagree — and throws FormatError or engine::InputError with one sentence naming the
/// tensor or field and what was expected.
AttentionCase loadAttentionCase(const SafetensorsFile& file);

} // namespace attnviz::io
