#pragma once

#include <string>
#include <vector>

namespace attnviz::cli {

/// `attnviz-cli export`: heatmaps, matrices, traces and handouts without a display.
int runExportCommand(const std::vector<std::string>& args, char* program);

} // namespace attnviz::cli
