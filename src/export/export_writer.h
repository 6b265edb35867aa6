#pragma once

#include "export/export_plan.h"
#include "export/heatmap_image.h"

#include <QString>

#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

namespace attnviz::exporting {

enum class ExportFormat { Png, Svg, Pdf, Csv, Npy };
std::optional<ExportFormat> exportFormatFromName(const QString& name);
QString extensionOf(ExportFormat format);

/// An export that cannot be written; the message is one sentence naming the file.
class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The bytes of one item in a format (an image of `size`, or the matrix as CSV or .npy).
QByteArray exportBytes(const ExportItem& item, ExportFormat format, ImageSize size);

/// Writes every item as `folder/<baseName>.<ext>`, each atomically (a temporary file renamed into
/// place). Before writing anything it checks that the folder exists and is writable and, unless
/// `overwrite`, that none of the files exists, so a refused export leaves the folder untouched.
/// `progress(done, total)` is called after each file. Returns the paths written.
std::vector<QString> writeExport(const std::vector<ExportItem>& items, ExportFormat format, ImageSize size,
                                 const QString& folder, bool overwrite,
                                 const std::function<void(int, int)>& progress = {});

} // namespace attnviz::exporting
