#pragma once

#include <string>
#include <vector>

namespace attnviz::cli {

/// `attnviz-cli trace`: a whole model's forward pass on a text, every activation dumped.
int runTraceCommand(const std::vector<std::string>& args);

} // namespace attnviz::cli
