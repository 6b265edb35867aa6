#pragma once

#include "app/heatmap_data.h"

#include <QByteArray>

namespace attnviz::exporting {

/// The matrix as CSV: a header row with the column labels (tokens or feature indices) after a
/// "row\column" corner cell, then one row per query/token with its label first. Values keep
/// float precision (9 significant digits); −∞ is written `-inf`.
QByteArray csvBytes(const app::HeatmapData& data);

/// The matrix as a NumPy .npy file (format 1.0, little-endian float32, C order, rows × cols):
/// `numpy.load` reads it without AttnViz.
QByteArray npyBytes(const app::HeatmapData& data);

} // namespace attnviz::exporting
