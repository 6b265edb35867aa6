#pragma once

#include "lesson/head_importance.h"
#include "lesson/heatmap.h"

#include <vector>

namespace attnviz::lesson {

/// One kind of attention block's heads, layers × heads.
struct ImportanceMap {
    engine::Block block;
    Heatmap heatmap;
};

/// D2L 10.3's answer as a picture: one heatmap per kind of attention block the model has,
/// layers down and heads across, each cell how much worse the model does with that head
/// switched off (`harm`, in the metric's units). Signed: a head whose removal helps shows in the
/// other colour. `heads` is the model's head count.
std::vector<ImportanceMap> importanceHeatmaps(const ImportanceReport& report, int heads);

} // namespace attnviz::lesson
