#pragma once

#include "engine/multi_head_attention.h"

#include <array>
#include <optional>
#include <string_view>

namespace attnviz::engine {

/// The mistakes people make when they write multi-head attention by hand, and the conventions
/// for blocked scores that differ from AttnViz's (−∞, and zero weights for a fully blocked row).
/// The engine computes each of them on purpose so that a lesson can show it beside the correct
/// computation; the explanations live with the lesson texts (resources/mistakes/<name>.txt).
enum class AttentionMistake {
    /// `.view(B, H, N, d_k)` straight from [B, N, H·d_k]: heads get slices of tokens, not of
    /// features.
    SplitTokens,
    /// softmax(Q Kᵀ) without ÷√d_k.
    NoScaling,
    /// The softmax normalises over the queries (dim −2), so columns, not rows, add up to 1.
    SoftmaxOverQueries,
    /// The mask is applied to the weights after the softmax: blocked weights become 0, and the
    /// rows no longer add up to 1.
    MaskAfterSoftmax,
    /// 1 and 0 swapped: a query attends exactly to the keys it must not see.
    InvertedMask,
    /// [B, H, N, d_v] reshaped to [B, N, H·d_v] without moving the head axis back first.
    ConcatWithoutTranspose,
    /// `q_k.masked_fill(mask, …)` whose result is never assigned (article 004): no mask at all.
    MaskDiscarded,
    /// `masked_fill(mask, 1e-9)` instead of −1e9 or −∞ (article 004): a blocked score becomes
    /// about 0, which the softmax still weighs.
    MaskFilledWithTinyNumber,
    /// The heads are concatenated and returned without W_o (article 004).
    NoOutputProjection,
    /// Blocked scores set to −1e9 (The Annotated Transformer's choice) instead of −∞: the same
    /// weights, except that a row with every key blocked becomes uniform over all keys.
    MaskFilledWithMinus1e9,
    /// −∞ with no guard for a row whose keys are all blocked: its softmax is 0/0, NaN, and the
    /// NaN spreads through the context, the output and everything after it.
    FullyMaskedRowsAsNaN,
};

struct AttentionMistakeInfo {
    AttentionMistake mistake;
    std::string_view name; ///< stable: text resources, CLI arguments, test data
    AttentionStep firstWrongStep; ///< the first intermediate that differs from the correct one
};

inline constexpr std::array kAttentionMistakeTable = {
    AttentionMistakeInfo{AttentionMistake::SplitTokens, "split_tokens", AttentionStep::QHeads},
    AttentionMistakeInfo{AttentionMistake::NoScaling, "no_scaling", AttentionStep::Scaled},
    AttentionMistakeInfo{AttentionMistake::SoftmaxOverQueries, "softmax_over_queries",
                         AttentionStep::Weights},
    AttentionMistakeInfo{AttentionMistake::MaskAfterSoftmax, "mask_after_softmax",
                         AttentionStep::Masked},
    AttentionMistakeInfo{AttentionMistake::InvertedMask, "inverted_mask", AttentionStep::Masked},
    AttentionMistakeInfo{AttentionMistake::ConcatWithoutTranspose, "concat_without_transpose",
                         AttentionStep::Concat},
    AttentionMistakeInfo{AttentionMistake::MaskDiscarded, "mask_discarded", AttentionStep::Masked},
    AttentionMistakeInfo{AttentionMistake::MaskFilledWithTinyNumber, "mask_filled_with_1e-9",
                         AttentionStep::Masked},
    AttentionMistakeInfo{AttentionMistake::NoOutputProjection, "no_output_projection",
                         AttentionStep::Output},
    AttentionMistakeInfo{AttentionMistake::MaskFilledWithMinus1e9, "mask_filled_with_-1e9",
                         AttentionStep::Masked},
    AttentionMistakeInfo{AttentionMistake::FullyMaskedRowsAsNaN, "fully_masked_rows_as_nan",
                         AttentionStep::Weights},
};

const AttentionMistakeInfo& mistakeInfo(AttentionMistake mistake);
std::optional<AttentionMistake> mistakeFromName(std::string_view name);

/// A forward pass with a mistake made, and the mask as that pass applied it: the cells it blocks
/// are exactly the −∞ cells of the trace's masked step (none when the mistake leaves no −∞, an
/// inverted mask where it was inverted).
struct MistakenPass {
    AttentionTrace trace;
    AttentionMask appliedMask;
};

/// The forward pass with `mistake` made: every step before the mistake's first wrong step is the
/// correct one, every step from there on follows the mistake. The trace keeps every step. With
/// NoOutputProjection the output is the concatenation, [B, Nq, H·d_v]. A row left with no weight
/// at all (an inverted mask over a query that could see every key) gets zero weights, as a fully
/// masked row does in the correct pass. `ablatedHeads` are switched off as in forward(), so a
/// mistake can be compared with a pass that has heads off. Throws InputError as forward() does.
MistakenPass forwardWithMistake(const MultiHeadAttention& attention, const Tensor& query,
                                const Tensor& key, const Tensor& value, const AttentionMask& mask,
                                AttentionMistake mistake,
                                const std::vector<int>& ablatedHeads = {});

} // namespace attnviz::engine
