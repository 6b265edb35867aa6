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

/// An export refused because a file it would write already exists (a user's choice to make, not
/// a failure of the disk).
class ExistingFileError : public ExportError {
public:
    using ExportError::ExportError;
};

/// Throws ExistingFileError naming the first path that exists, unless `overwrite`. Called before
/// anything is written, so a refused export leaves the folder untouched.
void refuseExisting(const std::vector<QString>& paths, bool overwrite);

/// Writes one file atomically (a temporary file renamed into place); ExportError when it fails.
void writeBytes(const QString& path, const QByteArray& bytes);

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
