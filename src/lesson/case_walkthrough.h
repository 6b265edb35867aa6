#pragma once

#include "engine/multi_head_attention.h"
#include "io/attention_case.h"
#include "lesson/walkthrough.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnviz::lesson {

/// Runs the module of an `attnviz-cli mha` case file and returns it as a walkthrough (tokens are
/// position numbers). `name` is what titles and manifests call the case. Throws
/// engine::InputError when the case's tensors do not fit together, or when its trace would need
/// more memory than MemoryBudget allows with `maxMemory` (checked before computing).
std::shared_ptr<const Walkthrough> computeCase(io::AttentionCase attentionCase,
                                               const std::string& name,
                                               const engine::AttentionOptions& options = {},
                                               std::optional<std::uint64_t> maxMemory = {});

} // namespace attnviz::lesson
