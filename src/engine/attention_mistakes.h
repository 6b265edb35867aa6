#pragma once

#include "engine/attention_stages.h"
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

/// The stage functions a mistake puts in place of the correct ones (engine/attention_stages.h),
/// in both precisions (the exact pass's and the float ones').
namespace mistaken {
template <typename S> void splitTokens(const StageInputs&, BasicAttentionTrace<S>&); ///< `.view`
template <typename S> void scaleByOne(const StageInputs&, BasicAttentionTrace<S>&); ///< no ÷√d_k
template <typename S> void softmaxOverQueries(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void maskNothing(const StageInputs&, BasicAttentionTrace<S>&); ///< as input
template <typename S> void softmaxThenMask(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void invertMask(const StageInputs&, BasicAttentionTrace<S>&); ///< allowed −∞
template <typename S> void fillWithTinyNumber(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void fillWithMinus1e9(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void softmaxWithoutGuard(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void concatWithoutTranspose(const StageInputs&, BasicAttentionTrace<S>&);
template <typename S> void outputIsConcat(const StageInputs&, BasicAttentionTrace<S>&); ///< no W_o
} // namespace mistaken

/// Which mask a mistaken pass applied, for the hatched cells of its views.
enum class AppliedMask {
    Given, ///< the mask in force, as in the correct pass
    None, ///< no −∞ anywhere (the mask was dropped, filled with a number or applied later)
    Inverted, ///< exactly the keys the mask allows are blocked
};

struct AttentionMistakeInfo {
    AttentionMistake mistake;
    std::string_view name; ///< stable: text resources, CLI arguments, test data
    /// The stages computed another way (the second is unused when its function is null).
    std::array<StageReplacement, 2> replaced;
    AppliedMask applied = AppliedMask::Given;
};

namespace detail {
/// A stage computed by `Mistake<S>` in either precision.
template <void (*Float)(const StageInputs&, BasicAttentionTrace<float>&),
          void (*Double)(const StageInputs&, BasicAttentionTrace<double>&)>
constexpr StageReplacement replaced(AttentionStage stage)
{
    return {stage, Float, Double};
}
constexpr std::array<StageReplacement, 2> one(StageReplacement r)
{
    return {r, StageReplacement{r.stage}};
}
} // namespace detail

#define ATTNVIZ_MISTAKE(stage, function)                                                           \
    detail::replaced<mistaken::function<float>, mistaken::function<double>>(AttentionStage::stage)

inline constexpr std::array kAttentionMistakeTable = {
    AttentionMistakeInfo{AttentionMistake::SplitTokens, "split_tokens",
                         detail::one(ATTNVIZ_MISTAKE(Split, splitTokens))},
    AttentionMistakeInfo{AttentionMistake::NoScaling, "no_scaling",
                         detail::one(ATTNVIZ_MISTAKE(Scale, scaleByOne))},
    AttentionMistakeInfo{AttentionMistake::SoftmaxOverQueries, "softmax_over_queries",
                         detail::one(ATTNVIZ_MISTAKE(Softmax, softmaxOverQueries))},
    AttentionMistakeInfo{
        AttentionMistake::MaskAfterSoftmax,
        "mask_after_softmax",
        {ATTNVIZ_MISTAKE(Mask, maskNothing), ATTNVIZ_MISTAKE(Softmax, softmaxThenMask)},
        AppliedMask::None},
    AttentionMistakeInfo{AttentionMistake::InvertedMask, "inverted_mask",
                         detail::one(ATTNVIZ_MISTAKE(Mask, invertMask)), AppliedMask::Inverted},
    AttentionMistakeInfo{AttentionMistake::ConcatWithoutTranspose, "concat_without_transpose",
                         detail::one(ATTNVIZ_MISTAKE(Concat, concatWithoutTranspose))},
    AttentionMistakeInfo{AttentionMistake::MaskDiscarded, "mask_discarded",
                         detail::one(ATTNVIZ_MISTAKE(Mask, maskNothing)), AppliedMask::None},
    AttentionMistakeInfo{AttentionMistake::MaskFilledWithTinyNumber, "mask_filled_with_1e-9",
                         detail::one(ATTNVIZ_MISTAKE(Mask, fillWithTinyNumber)), AppliedMask::None},
    AttentionMistakeInfo{AttentionMistake::NoOutputProjection, "no_output_projection",
                         detail::one(ATTNVIZ_MISTAKE(Output, outputIsConcat))},
    AttentionMistakeInfo{AttentionMistake::MaskFilledWithMinus1e9, "mask_filled_with_-1e9",
                         detail::one(ATTNVIZ_MISTAKE(Mask, fillWithMinus1e9)), AppliedMask::None},
    AttentionMistakeInfo{AttentionMistake::FullyMaskedRowsAsNaN, "fully_masked_rows_as_nan",
                         detail::one(ATTNVIZ_MISTAKE(Softmax, softmaxWithoutGuard))},
};

#undef ATTNVIZ_MISTAKE

/// The earliest stage a mistake replaces: every step before it is the correct pass's.
AttentionStage firstReplacedStage(const AttentionMistakeInfo& info);
/// The first intermediate that differs from the correct one: the first step of that stage.
AttentionStep firstWrongStep(const AttentionMistakeInfo& info);

const AttentionMistakeInfo& mistakeInfo(AttentionMistake mistake);
std::optional<AttentionMistake> mistakeFromName(std::string_view name);

/// A forward pass with a mistake made, and the mask as that pass applied it: the cells it blocks
/// are exactly the −∞ cells of the trace's masked step (none when the mistake leaves no −∞, an
/// inverted mask where it was inverted).
struct MistakenPass {
    AttentionTrace trace;
    AttentionMask appliedMask;
};

/// The correct forward pass with the mistake's stages replaced: every step before the mistake's
/// first wrong step is the correct one, bit for bit; from there on the stage functions run, the
/// mistaken ones in place of the right ones. The trace keeps every step. With
/// NoOutputProjection the output is the concatenation, [B, Nq, H·d_v]. A row left with no weight
/// at all (an inverted mask over a query that could see every key) gets zero weights, as a fully
/// masked row does in the correct pass. `options` (heads switched off, positions) apply as in
/// forward(), so a mistake can be compared with a pass that has heads off. Throws InputError as
/// forward() does.
MistakenPass forwardWithMistake(const MultiHeadAttention& attention, const Tensor& query,
                                const Tensor& key, const Tensor& value, const AttentionMask& mask,
                                AttentionMistake mistake, const AttentionOptions& options = {});

} // namespace attnviz::engine
