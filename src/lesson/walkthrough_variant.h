#pragma once

#include "lesson/walkthrough.h"

#include <memory>
#include <optional>
#include <string>

namespace attnviz::lesson {

/// Why the module of `w` cannot be run again on its inputs with something changed (a mistake
/// made, another divisor): an import holds weights only, and a block of a long run may not have
/// kept what it read. nullopt when it can.
std::optional<std::string> whyNotRecomputable(const Walkthrough& w);

/// `w` showing another trace of the same inputs, with the mask whose blocked cells are that
/// trace's −∞ cells, and `module` when the trace is another module's (another description).
std::shared_ptr<const Walkthrough> withTrace(
    const Walkthrough& w, engine::AttentionTrace trace, engine::AttentionMask mask,
    std::shared_ptr<const engine::MultiHeadAttention> module = nullptr);

} // namespace attnviz::lesson
