#pragma once

#include "lesson/heatmap.h"

#include <QByteArray>
#include <QString>

#include <utility>

class QWidget;

namespace attnviz::app {

/// Writes one map as the Export menu writes the map on screen, the format from the file's
/// extension (png, svg, pdf, csv or npy: render::exportFormats), atomically. Throws
/// std::runtime_error with one sentence for another extension or a file that cannot be written.
void exportMap(const QString& path, const lesson::Heatmap& map, std::pair<double, double> range,
               const std::string& baseName);

/// Writes an export's bytes to `path` atomically; std::runtime_error with one sentence when the
/// file cannot be written.
void writeExportFile(const QString& path, const QByteArray& bytes);

/// Asks where (a file dialog suggesting `baseName`.png), writes, and says a failure in a message
/// box. Returns the path written, or empty when cancelled or failed.
QString exportMapAs(QWidget* parent, const lesson::Heatmap& map, std::pair<double, double> range,
                    const std::string& baseName);

} // namespace attnviz::app
