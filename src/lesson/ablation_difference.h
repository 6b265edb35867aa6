#pragma once

#include "lesson/walkthrough.h"

#include <memory>

namespace attnviz::lesson {

/// The before/after view of switching heads off: `w` showing, at every step both runs kept,
/// (heads off) − (every head on), with `difference` set so that views use a signed scale. Within
/// one module the two agree up to the context and part ways at the concat; in a model, every
/// block after the first switched-off head differs. Null when `w` has no `intact` twin (no head
/// is off, or its run could not keep one).
std::shared_ptr<const Walkthrough> ablationDifference(const Walkthrough& w);

} // namespace attnviz::lesson
