#include "export/export_writer.h"

#include "export/matrix_files.h"
#include "io/atomic_file.h"

#include <QDir>
#include <QFuture>
#include <QImage>
#include <QtConcurrent/QtConcurrentRun>

#include <deque>
#include <QFileInfo>

namespace attnviz::exporting {

std::optional<ExportFormat> exportFormatFromName(const QString& name)
{
    const QString n = name.toLower();
    for (const ExportFormat f : {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Csv, ExportFormat::Npy})
        if (n == extensionOf(f))
            return f;
    return std::nullopt;
}

QString extensionOf(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Png: return QStringLiteral("png");
    case ExportFormat::Svg: return QStringLiteral("svg");
    case ExportFormat::Pdf: return QStringLiteral("pdf");
    case ExportFormat::Csv: return QStringLiteral("csv");
    case ExportFormat::Npy: return QStringLiteral("npy");
    }
    return {};
}

QByteArray exportBytes(const ExportItem& item, ExportFormat format, ImageSize size)
{
    switch (format) {
    case ExportFormat::Png: return renderHeatmap(item.data, item.range, ImageFormat::Png, size);
    case ExportFormat::Svg: return renderHeatmap(item.data, item.range, ImageFormat::Svg, size);
    case ExportFormat::Pdf: return renderHeatmap(item.data, item.range, ImageFormat::Pdf, size);
    case ExportFormat::Csv: return csvBytes(item.data);
    case ExportFormat::Npy: return npyBytes(item.data);
    }
    return {};
}

void refuseExisting(const std::vector<QString>& paths, bool overwrite)
{
    if (overwrite)
        return;
    for (const QString& p : paths)
        if (QFileInfo::exists(p))
            throw ExistingFileError(p.toStdString() + " already exists; nothing was written (--overwrite replaces existing files).");
}

void writeBytes(const QString& path, const QByteArray& bytes)
{
    try {
        io::writeFileAtomically(path.toStdString(), std::span<const char>(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const io::FileError& e) {
        throw ExportError(e.what());
    }
}

std::vector<QString> writeExport(const std::vector<ExportItem>& items, ExportFormat format, ImageSize size,
                                 const QString& folder, bool overwrite, const std::function<void(int, int)>& progress)
{
    const QFileInfo dir(folder);
    if (!dir.isDir())
        throw ExportError("The output folder " + folder.toStdString() + " does not exist.");
    if (!dir.isWritable())
        throw ExportError("The output folder " + folder.toStdString() + " is not writable.");
    std::vector<QString> paths;
    for (const ExportItem& item : items)
        paths.push_back(QDir(folder).filePath(item.baseName + QLatin1Char('.') + extensionOf(format)));
    refuseExisting(paths, overwrite);
    // PNG: draw here (widgets live on this thread), encode and write on the pool; a few images in
    // flight at a time keep both cores busy without holding the whole set in memory. A worker
    // reports a failed write as its message.
    std::deque<QFuture<QString>> inFlight;
    int done = 0;
    QString failure;
    const auto finishOldest = [&] {
        const QString error = inFlight.front().result();
        inFlight.pop_front();
        if (!error.isEmpty() && failure.isEmpty())
            failure = error;
        if (progress && failure.isEmpty())
            progress(++done, static_cast<int>(items.size()));
    };
    try {
        for (std::size_t i = 0; i < items.size() && failure.isEmpty(); ++i) {
            if (format == ExportFormat::Png) {
                QImage image = renderHeatmapImage(items[i].data, items[i].range, size);
                inFlight.push_back(QtConcurrent::run([path = paths[i], image = std::move(image)] {
                    try {
                        writeBytes(path, encodePng(image));
                    } catch (const ExportError& e) {
                        return QString::fromStdString(e.what());
                    }
                    return QString();
                }));
                if (inFlight.size() > 3)
                    finishOldest();
                continue;
            }
            writeBytes(paths[i], exportBytes(items[i], format, size));
            if (progress)
                progress(++done, static_cast<int>(items.size()));
        }
    } catch (const ExportError& e) {
        failure = QString::fromStdString(e.what());
    }
    while (!inFlight.empty())
        finishOldest();
    if (!failure.isEmpty())
        throw ExportError(failure.toStdString());
    return paths;
}

} // namespace attnviz::exporting
