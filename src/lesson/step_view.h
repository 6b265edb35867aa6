#pragma once

#include "lesson/heatmap.h"
#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::lesson {

/// One matrix of a walkthrough's trace, as every view and export draws it: a head's matrix of a
/// per-head step (`head` ignored otherwise); token labels along query and key axes, indices
/// along feature axes; the sequential scale for weights; blocked cells marked on the masked
/// scores and the weights; head bands over feature columns that belong to heads.
Heatmap traceHeatmap(const std::shared_ptr<const Walkthrough>& w, engine::AttentionStep step,
                     int batch, int head, std::string title, std::string caption);

/// The heatmaps a lesson step shows for one batch item: one per head for a per-head step,
/// otherwise the step's whole matrices; for a step with alternatives, the one chosen.
std::vector<Heatmap> stepHeatmaps(const LessonStep& step,
                                  const std::shared_ptr<const Walkthrough>& w, int batch,
                                  std::size_t alternative = 0);

/// The learned matrices a step applies, as the formula uses them: W_qᵀ, W_kᵀ, W_vᵀ (D × H·d_k,
/// each head's columns banded in its colour) on the projections step, W_o (Po × H·d_v, whose
/// column block h weighs head h's context) on the output step. Empty for other steps and for a
/// walkthrough without weights (an import).
std::vector<Heatmap> weightHeatmaps(const LessonStep& step, const Walkthrough& w);

/// The shape line with named axes, e.g. "weights (batch=2, head=4, query=5, key=7)"; for a step
/// that applies learned matrices, a second line counts their parameters ("W_o 16×16 + 16 = 272
/// parameters; the module: 1,088 (1,024 without biases)").
std::string stepShapes(const LessonStep& step, const Walkthrough& w);

/// The formula of a step with the walkthrough's live sizes filled in; the input step of a model
/// block says where X came from instead.
std::string stepFormula(const LessonStep& step, const Walkthrough& w,
                        std::string_view formulaTemplate);

/// What a student should know about the walkthrough's mask on the steps it affects: the valid
/// lengths in force ("valid lengths [3, 2]: item 0 sees keys 0–2, …"), and a warning when a
/// causal mask is put on cross-attention. Empty when there is nothing to say.
std::vector<std::string> maskNotes(const Walkthrough& w);

/// A number as people write it, e.g. θ: 10000, 500000, 1e+06.
std::string formatNumber(double v);

/// `{B}`, `{H}`, `{Hlast}`, `{Nq}`, `{Nk}`, `{D}`, `{dk}`, `{dv}`, `{Hdk}`, `{Hdv}`, `{Po}`
/// replaced by the walkthrough's sizes; `{scaledVariance}` and `{scaledLargest}` by the
/// variance and largest magnitude of the scaled scores it shows (lesson::scaledScoreSpread).
std::string fillSizes(std::string_view text, const Walkthrough& w);

} // namespace attnviz::lesson
