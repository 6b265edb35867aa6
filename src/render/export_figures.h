#pragma once

#include "lesson/export_plan.h"
#include "render/image_export.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnviz::render {

/// How an export's matrices become image files: one per matrix, one per layer and block with its
/// heads side by side, or one per block and step with a row per layer and a column per head (the
/// whole model at a glance).
enum class FigureArrangement { Each, Heads, Grid };

/// A row of the arrangements' table: --figure's value and help.
struct ArrangementInfo {
    FigureArrangement arrangement;
    std::string_view name;
    std::string_view help;
};
const std::vector<ArrangementInfo>& figureArrangements();

/// One image file of an export: its name without extension, what it shows, and the items it
/// shows (for its metadata).
struct ExportFigure {
    std::string baseName;
    FigureContent content;
    std::vector<const lesson::ExportItem*> items;
};

/// The items as figures. Panels of a gathered figure are titled by what tells them apart
/// ("head 3", "layer 2 · head 3"), the figure by what they share ("gpt2 · self · weights");
/// each keeps its colour range, so a step's shared range gives one colour bar beside the grid.
std::vector<ExportFigure> arrangeFigures(const std::vector<lesson::ExportItem>& items,
                                         FigureArrangement arrangement);

} // namespace attnviz::render
