#include "render/model_description.h"

#include "render/text_resource.h"

#include <QDir>
#include <QLocale>

namespace attnviz::render {

QString localisedModelDescription(const std::string& english)
{
    const QString source = QString::fromStdString(english);
    registerTextResources();
    const QString folder = QStringLiteral(":/%1/models/").arg(QLocale().name());
    for (const QString& file : QDir(folder).entryList({QStringLiteral("*.txt")}, QDir::Files)) {
        const TextResource text = readTextResource({folder + file});
        if (text.fields.value(QStringLiteral("source")) == source.trimmed())
            return text.fields.value(QStringLiteral("description"), source);
    }
    return source;
}

} // namespace attnviz::render
