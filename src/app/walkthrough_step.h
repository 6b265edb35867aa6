#pragma once

#include "app/heatmap_data.h"

#include <QString>

#include <array>
#include <memory>
#include <vector>

namespace attnviz::app {

struct Walkthrough;

/// The stops of the walkthrough, in the order a student meets them.
enum class WalkthroughStep { Input, Projections, Split, Scores, Scaled, Masked, Softmax, Context,
                             Concat, Output };

inline constexpr std::array kWalkthroughSteps = {
    WalkthroughStep::Input,   WalkthroughStep::Projections, WalkthroughStep::Split,
    WalkthroughStep::Scores,  WalkthroughStep::Scaled,      WalkthroughStep::Masked,
    WalkthroughStep::Softmax, WalkthroughStep::Context,     WalkthroughStep::Concat,
    WalkthroughStep::Output,
};

/// The text of a step, read from resources/steps/<id>.txt: a title, a navigator label, a formula
/// with `{B}`-style size placeholders, and an explanation in HTML.
struct StepText {
    QString title;
    QString label;
    QString formula;
    QString explanation;
};

/// "input", "projections", ... (resource file names and settings keys)
QString stepId(WalkthroughStep step);
/// The text of a step; inside a model (`w` with an input origin) the input step explains the
/// residual stream instead of embeddings (resources/steps/input_in_model.txt).
StepText stepText(WalkthroughStep step, const Walkthrough* w = nullptr);

/// The formula with the walkthrough's live sizes filled in.
QString formulaFor(WalkthroughStep step, const Walkthrough& w);
/// The shape line with named axes, e.g. "weights: (batch=2, head=4, query=5, key=7)".
QString shapesFor(WalkthroughStep step, const Walkthrough& w);

/// The matrices a step shows for one batch item: one per head where the step is per head
/// (`perHead` true), otherwise one or a few whole matrices.
struct StepMatrices {
    bool perHead = false;
    std::vector<HeatmapData> maps;
};
/// Which projection the split step shows per head.
enum class SplitPart { Queries, Keys, Values };
StepMatrices matricesFor(WalkthroughStep step, const std::shared_ptr<const Walkthrough>& w, int batch,
                         SplitPart part = SplitPart::Queries);

} // namespace attnviz::app
