#pragma once

#include <string>
#include <vector>

namespace attnviz::cli {

/// `attnviz-cli mha CASE.safetensors [--dump OUT.safetensors] [--threads N] [--quiet]`: runs one
/// multi-head attention module on a case file, prints the steps and their shapes, and writes
/// every intermediate. Returns the process exit code (0, 1 when OUT cannot be written, 2 for bad
/// input or usage).
int runMhaCommand(const std::vector<std::string>& args);

extern const char* const kMhaUsage;

} // namespace attnviz::cli
