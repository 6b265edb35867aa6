#pragma once

#include "app/heatmap_data.h"
#include "app/playground.h"
#include "engine/attention_trace.h"

#include <QStringList>

#include <memory>
#include <string>
#include <vector>

namespace attnviz::app {

/// True for the steps with one matrix per head (q_heads … context).
bool isPerHead(engine::AttentionStep step);

/// One matrix of a walkthrough's trace, as every view and export draws it: a head's matrix of a
/// per-head step, or the whole matrix of the others; token labels along query and key axes,
/// indices along feature axes; the sequential colour scale for weights, blocked cells marked on
/// the masked scores and the weights.
HeatmapData traceMatrix(const std::shared_ptr<const Walkthrough>& w, engine::AttentionStep step, int batch, int head,
                        const QString& title);

QStringList tokenLabels(const std::vector<std::string>& tokens);
QStringList indexLabels(std::int64_t count);

} // namespace attnviz::app
