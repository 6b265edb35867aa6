#pragma once

#include "engine/attention_trace.h"
#include "engine/model_weights.h"
#include "lesson/colour_scale.h"
#include "lesson/heatmap.h"
#include "lesson/index_set.h"
#include "lesson/map_selection.h"
#include "lesson/model_run.h"
#include "lesson/walkthrough.h"

#include <memory>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// Where an exported matrix comes from: what figures that gather several (a layer's heads, the
/// layers × heads of a step) group and label them by.
struct ExportPlace {
    engine::AttentionStep step = engine::AttentionStep::Weights;
    int layer = -1; ///< −1: a single module; −2: combined over layers
    engine::Block block = engine::Block::Self;
    int batch = 0;
    int head = -1; ///< −1: a step with one matrix for all heads; −2: combined over heads
    std::string source; ///< "gpt2", a case's name
    std::string namePrefix; ///< before "head{h}_": "layer0_self_", "batch1_"
    std::string titleTail; ///< after the step's name: " (heads 1, 3 off)"
    std::string headsCombined; ///< "mean over heads 0–11" once heads are combined
    std::string layersCombined; ///< "max over layers 0–5" once layers are
    std::string filePrefix; ///< before every file name: "text2_" for a batch of texts
};

/// One matrix to export: its file name without extension, the heatmap, and the colour range it
/// shares with every other matrix of the same step in the set.
struct ExportItem {
    std::string baseName; ///< "layer0_self_head3_weights", "layer1_cross_concat", "head2_scores"
    Heatmap heatmap;
    std::pair<double, double> range;
    /// What sets the range, for the file's metadata: "linear colour scale, 0 to 0.65, shared by
    /// every weights map of the export".
    std::string rangeNote;
    ExportPlace place;
};

/// Which matrices to export; empty sets mean all of them.
struct ExportSelection {
    IndexSet layers;
    std::vector<engine::Block> blocks;
    IndexSet heads;
    std::vector<engine::AttentionStep> steps{engine::AttentionStep::Weights};
    /// Only these tokens, on every token axis (--tokens 100:140).
    std::optional<TokenRange> tokens;
    /// One map for the selected heads (of each layer and block) instead of a map per head, and
    /// one for the selected layers instead of one per layer: their mean or maximum.
    Combine overHeads = Combine::None;
    Combine overLayers = Combine::None;
};

/// The (layer, attention block) pairs a selection picks from a model run, in order. Throws
/// engine::InputError naming a selected layer or block the model does not have.
std::vector<std::pair<int, engine::Block>> selectedBlocks(const ModelRun& run,
                                                          const ExportSelection& selection);

/// The selected matrices of a model run (layer × block × head × step), titled with the model,
/// layer, block, head and step; cut to the selected tokens, combined over heads and layers as
/// asked, each with its colour range under `scale`. Throws engine::InputError naming a selected
/// layer, block or head the model does not have.
std::vector<ExportItem> planModelExport(const std::shared_ptr<const ModelRun>& run,
                                        const ExportSelection& selection,
                                        const ScaleChoice& scale = {});

/// The selected matrices of a single attention module (a case, the playground, one model block):
/// every batch item, head and step; `selection.layers` and `blocks` do not apply.
std::vector<ExportItem> planWalkthroughExport(const std::shared_ptr<const Walkthrough>& w,
                                              const ExportSelection& selection,
                                              const std::string& namePrefix,
                                              const std::string& titlePrefix,
                                              const ScaleChoice& scale = {});

/// What a walkthrough is called in titles: "reverse · layer 1 · cross", "playground", a case's
/// name.
std::string walkthroughTitle(const Walkthrough& w);

} // namespace attnviz::lesson
