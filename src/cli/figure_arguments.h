#pragma once

#include "cli/arguments.h"
#include "lesson/colour_scale.h"
#include "lesson/export_plan.h"
#include "render/export_figures.h"
#include "render/image_export.h"

#include <optional>
#include <string>
#include <vector>

namespace attnviz::cli {

/// How export's figures look: size, colours, labels, fonts, title, frame, marks, background.
struct FigureArguments {
    render::FigureOptions figure;
    lesson::ScaleChoice scale;
    /// --title TEXT for every figure, "" for --no-title; nullopt keeps each map's own title.
    std::optional<std::string> title;
    render::FigureArrangement arrangement = render::FigureArrangement::Each;
};

/// export's options for figures and for what each figure holds (--tokens, --over-heads,
/// --over-layers), as rows of its option table.
std::vector<OptionSpec> figureOptionSpecs();

/// The figure options given; UsageError for a value out of range or unknown. The font family is
/// checked against the installed fonts, so a QGuiApplication must exist.
FigureArguments figureArguments(const Arguments& arguments);

/// --tokens, --over-heads and --over-layers into the selection.
void selectionArguments(const Arguments& arguments, lesson::ExportSelection& selection);

} // namespace attnviz::cli
