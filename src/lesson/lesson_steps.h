#pragma once

#include "engine/attention_trace.h"
#include "lesson/question_kind.h"

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace attnviz::lesson {

/// One set of heatmaps a lesson step shows from the engine's trace.
struct TraceView {
    engine::AttentionStep step;
    std::string_view symbol; ///< its name in the shape line: "Q", "Q_h", "weights"
    std::string_view
        caption; ///< its heatmaps' caption: "Q = X W_qᵀ + b_q"; per head, "head h · " comes first
};

inline constexpr TraceView kProjectionViews[] = {
    {engine::AttentionStep::QProj, "Q", "Q = X W_qᵀ + b_q"},
    {engine::AttentionStep::KProj, "K", "K = X W_kᵀ + b_k"},
    {engine::AttentionStep::VProj, "V", "V = X W_vᵀ + b_v"}};
inline constexpr TraceView kSplitViews[] = {{engine::AttentionStep::QHeads, "Q_h", "Q_h"},
                                            {engine::AttentionStep::KHeads, "K_h", "K_h"},
                                            {engine::AttentionStep::VHeads, "V_h", "V_h"}};
inline constexpr TraceView kNormViews[] = {
    {engine::AttentionStep::QNormed, "norm(Q_h)", "RMSNorm(Q_h)"},
    {engine::AttentionStep::KNormed, "norm(K_h)", "RMSNorm(K_h)"}};
inline constexpr TraceView kRotateViews[] = {
    {engine::AttentionStep::QRotated, "RoPE(Q_h)", "RoPE(Q_h)"},
    {engine::AttentionStep::KRotated, "RoPE(K_h)", "RoPE(K_h)"}};
// {Qh} and {Kh} name what the scores multiply: rotated, and the K/V head of the group, when the
// module has rotary positions or shared K/V heads (fillSizes).
inline constexpr TraceView kScoresViews[] = {
    {engine::AttentionStep::Scores, "scores", "{Qh} {Kh}ᵀ"}};
inline constexpr TraceView kScaledViews[] = {
    {engine::AttentionStep::Scaled, "scaled", "{scaleCaption}"}};
inline constexpr TraceView kCappedViews[] = {
    {engine::AttentionStep::Capped, "capped", "{cap} · tanh(scaled / {cap})"}};
inline constexpr TraceView kBiasedViews[] = {{engine::AttentionStep::Biased, "biased", "+ bias"}};
inline constexpr TraceView kMaskedViews[] = {{engine::AttentionStep::Masked, "masked", "masked"}};
inline constexpr TraceView kOnlineViews[] = {
    {engine::AttentionStep::OnlineMax, "m", "m_t = max(m_{t−1}, max s_tile)"},
    {engine::AttentionStep::OnlineSum, "ℓ",
     "ℓ_t = ℓ_{t−1}·e^(m_{t−1} − m_t) + Σ e^(s_tile − m_t)"}};
inline constexpr TraceView kSoftmaxViews[] = {
    {engine::AttentionStep::Weights, "weights", "softmax"}};
inline constexpr TraceView kSinkViews[] = {
    {engine::AttentionStep::SinkWeights, "sink", "the weight on each head's sink"}};
inline constexpr TraceView kContextViews[] = {
    {engine::AttentionStep::Context, "context", "weights · V_h"}};
inline constexpr TraceView kConcatViews[] = {
    {engine::AttentionStep::Concat, "concat", "concat(head 0 … head {Hlast})"}};
inline constexpr TraceView kOutputViews[] = {
    {engine::AttentionStep::Output, "output", "output = concat W_oᵀ + b_o"}};

/// What a step can play when asked (▶ Animate): its numbers come from the trace, and
/// app/step_animation draws it.
enum class StepAnimationKind {
    None,
    Split, ///< columns slide apart into heads
    Concat, ///< heads slide back side by side
    Softmax, ///< a row of scores → exp(score − max) → weights that sum to 1
    WeightedSum, ///< value rows scaled by their weights add up to the context row
};

/// A stop of the walkthrough, in the order a student meets them. Everything that knows about
/// steps — the navigator, the text resources (resources/steps/<key>.txt, and <key>_in_model.txt
/// where a model's block needs other words), settings and lesson files, handout pages, the
/// Export menu, the CLI — reads this table. A step that views existing trace tensors is one row
/// here plus its text file.
struct LessonStep {
    std::string_view key;
    /// What it shows from the trace; empty for the input step, which shows X and where it came
    /// from.
    std::span<const TraceView> views;
    /// The views are shown one at a time and the user picks one (the split: Q_h, K_h or V_h).
    bool alternatives = false;
    /// The learned matrices this step applies ("W_q", …), whose parameters it counts.
    std::span<const std::string_view> weights = {};
    StepAnimationKind animation = StepAnimationKind::None;
    /// What Predict, then reveal asks before the step is shown, in order of preference.
    std::span<const QuestionKind> questions = {};

    /// Every view is query × key (mask drawing and cell drill-down work on it).
    bool scoreShaped() const;
    /// Whether a walkthrough of this trace offers the step: a step of an optional stage (rotary
    /// positions, a score bias) only when the module has that stage.
    bool shownFor(const engine::AttentionTrace& trace) const;
    /// The step's heatmaps are one per head.
    bool perHead() const;
};

inline constexpr std::string_view kProjectionWeights[] = {"W_q", "W_k", "W_v"};
inline constexpr QuestionKind kAskShape[] = {QuestionKind::Shape};
inline constexpr QuestionKind kAskShapeThenHead[] = {QuestionKind::Shape,
                                                     QuestionKind::ImportantHead};
inline constexpr QuestionKind kAskHeadThenShape[] = {QuestionKind::ImportantHead,
                                                     QuestionKind::Shape};
inline constexpr QuestionKind kAskHighestScore[] = {QuestionKind::HighestScore,
                                                    QuestionKind::Shape};
inline constexpr QuestionKind kAskDivisor[] = {QuestionKind::Divisor};
inline constexpr QuestionKind kAskShapeThenCache[] = {QuestionKind::Shape,
                                                      QuestionKind::CacheBytes};
inline constexpr QuestionKind kAskVisibleKeysThenReach[] = {QuestionKind::VisibleKeys,
                                                            QuestionKind::WindowReach};
inline constexpr QuestionKind kAskStrongestKeyThenSink[] = {QuestionKind::StrongestKey,
                                                            QuestionKind::FirstTokenShare};
inline constexpr std::string_view kOutputWeights[] = {"W_o"};

inline constexpr std::array kLessonSteps = {
    LessonStep{"input", {}},
    LessonStep{"projections", kProjectionViews, false, kProjectionWeights, StepAnimationKind::None,
               kAskShape},
    LessonStep{"split", kSplitViews, true, {}, StepAnimationKind::Split, kAskShapeThenCache},
    LessonStep{"normed", kNormViews, true, {}, StepAnimationKind::None, kAskShape},
    LessonStep{"rotate", kRotateViews, true, {}, StepAnimationKind::None, kAskShape},
    LessonStep{"scores", kScoresViews, false, {}, StepAnimationKind::None, kAskHighestScore},
    LessonStep{"scaled", kScaledViews, false, {}, StepAnimationKind::None, kAskDivisor},
    LessonStep{"capped", kCappedViews, false, {}, StepAnimationKind::None, kAskShape},
    LessonStep{"biased", kBiasedViews, false, {}, StepAnimationKind::None, kAskShape},
    LessonStep{
        "masked", kMaskedViews, false, {}, StepAnimationKind::None, kAskVisibleKeysThenReach},
    LessonStep{"online", kOnlineViews, true, {}, StepAnimationKind::None, kAskShape},
    LessonStep{
        "softmax", kSoftmaxViews, false, {}, StepAnimationKind::Softmax, kAskStrongestKeyThenSink},
    LessonStep{"sink", kSinkViews, false, {}, StepAnimationKind::None, kAskShape},
    LessonStep{
        "context", kContextViews, false, {}, StepAnimationKind::WeightedSum, kAskHeadThenShape},
    LessonStep{"concat", kConcatViews, false, {}, StepAnimationKind::Concat, kAskShapeThenHead},
    LessonStep{"output", kOutputViews, false, kOutputWeights, StepAnimationKind::None,
               kAskHeadThenShape},
};

/// A position in kLessonSteps.
using LessonStepIndex = std::size_t;

/// The index of the step with this key, if any.
std::optional<LessonStepIndex> lessonStepIndex(std::string_view key);
const LessonStep& lessonStep(LessonStepIndex index);
/// The step whose view shows this trace step (the first, if several do).
std::optional<LessonStepIndex> lessonStepShowing(engine::AttentionStep step);
/// The steps a walkthrough of this trace offers, in order (numbering "step 3 of 11" counts them).
std::vector<LessonStepIndex> shownLessonSteps(const engine::AttentionTrace& trace);
/// The offered step after (`direction` +1) or before (−1) `from`; `from` when there is none.
LessonStepIndex neighbourLessonStep(const engine::AttentionTrace& trace, LessonStepIndex from,
                                    int direction);

} // namespace attnviz::lesson
