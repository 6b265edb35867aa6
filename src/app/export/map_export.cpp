#include "app/export/map_export.h"

#include "io/atomic_file.h"
#include "io/file_error.h"
#include "lesson/export_plan.h"
#include "render/export_formats.h"
#include "render/image_export.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStringList>

#include <stdexcept>

namespace attnviz::app {

void exportMap(const QString& path, const lesson::Heatmap& map, std::pair<double, double> range,
               const std::string& baseName)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    const render::ExportFormat* format = render::exportFormat(ext.toStdString());
    if (!format || !format->itemBytes)
        throw std::runtime_error(
            QCoreApplication::translate(
                "MapExport", "Cannot export to '.%1'; use .png, .svg, .pdf, .csv or .npy.")
                .arg(ext)
                .toStdString());
    lesson::ExportItem item;
    item.baseName = baseName;
    item.heatmap = map;
    item.range = range;
    writeExportFile(path, format->itemBytes(item, render::FigureOptions{}));
}

void writeExportFile(const QString& path, const QByteArray& bytes)
{
    try {
        io::writeFileAtomically(
            path.toStdString(),
            std::span<const char>(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const io::FileError& e) {
        throw std::runtime_error(e.what());
    }
}

QString exportMapAs(QWidget* parent, const lesson::Heatmap& map, std::pair<double, double> range,
                    const std::string& baseName)
{
    QStringList filters;
    for (const render::ExportFormat& f : render::exportFormats())
        if (f.itemBytes)
            filters << QString::fromLatin1(f.dialogFilter.data(),
                                           static_cast<qsizetype>(f.dialogFilter.size()));
    const QString path = QFileDialog::getSaveFileName(
        parent, QCoreApplication::translate("MapExport", "Export the map"),
        QString::fromStdString(baseName) + QStringLiteral(".png"),
        filters.join(QStringLiteral(";;")));
    if (path.isEmpty())
        return {};
    try {
        exportMap(path, map, range, baseName);
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, QCoreApplication::translate("MapExport", "Export"),
                             QString::fromStdString(e.what()));
        return {};
    }
    return path;
}

} // namespace attnviz::app
