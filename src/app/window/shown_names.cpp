#include "app/window/shown_names.h"

#include "io/file_error.h"

#include <QDir>
#include <QFileInfo>

namespace attnviz::app {

QString shownText(const QString& text, std::size_t limit)
{
    return QString::fromStdString(io::printable(text.toStdString(), limit));
}

QString shownFileName(const QString& path)
{
    return shownText(QFileInfo(QDir::cleanPath(path)).fileName(), 80);
}

QString shownPath(const QString& path)
{
    return shownText(QDir::toNativeSeparators(path));
}

} // namespace attnviz::app
