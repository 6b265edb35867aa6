#pragma once

#include "app/heatmap_data.h"
#include "app/playground.h"
#include "engine/attention_trace.h"
#include "engine/model_run.h"
#include "engine/model_weights.h"
#include "engine/transformer_model.h"
#include "io/attention_case.h"

#include <QString>

#include <memory>
#include <vector>

namespace attnviz::exporting {

/// One matrix to export: its file name without extension, the matrix, and the colour range it
/// shares with every other matrix of the same step in the set.
struct ExportItem {
    QString baseName; ///< "layer0_self_head3_weights", "layer1_cross_concat", "head2_scores"
    app::HeatmapData data;
    std::pair<double, double> range;
};

/// Which matrices to export; an empty list means all of them.
struct ExportSelection {
    std::vector<int> layers;
    std::vector<engine::Block> blocks;
    std::vector<int> heads;
    std::vector<engine::AttentionStep> steps{engine::AttentionStep::Weights};
};

/// The (layer, attention block) pairs a selection picks from a model run, in order. Throws
/// engine::InputError naming a selected layer or block the model does not have.
std::vector<std::pair<int, engine::Block>> selectedBlocks(const engine::TransformerModel& model,
                                                          const engine::ModelTrace& trace, const ExportSelection& selection);

/// The selected matrices of a model run (layer × block × head × step), titled with the model,
/// layer, block, head and step. Throws engine::InputError naming a selected layer, block or head
/// the model does not have.
std::vector<ExportItem> planModelExport(const engine::TransformerModel& model, const engine::ModelRun& run,
                                        const ExportSelection& selection);

/// The selected matrices of a single attention module (an `attnviz-cli mha` case or the
/// playground): every batch item, head and step; `selection.layers` and `blocks` do not apply.
std::vector<ExportItem> planWalkthroughExport(const std::shared_ptr<const app::Walkthrough>& w,
                                              const ExportSelection& selection, const QString& titlePrefix);

/// A single-module case (`attnviz-cli mha` format) and its trace as a walkthrough: tokens are
/// position numbers, since a case holds vectors, not text.
std::shared_ptr<const app::Walkthrough> walkthroughForCase(const io::AttentionCase& c, engine::AttentionTrace trace);

} // namespace attnviz::exporting
