#include "render/text_resource.h"

#include <QFile>
#include <QLocale>
#include <QStringList>

// The texts are compiled into the static attnviz_render library, whose resources are not
// registered automatically (Q_INIT_RESOURCE must be called outside a namespace).
static void registerTexts()
{
    Q_INIT_RESOURCE(attnviz);
}

namespace attnviz::render {

void registerTextResources()
{
    static const bool registered = (registerTexts(), true);
    (void)registered;
}

TextResource readTextResource(const QStringList& paths)
{
    registerTextResources();
    // A translation lives under the language's folder (":/zh_CN/steps/…"); a text it lacks is
    // read in English.
    const QString language = QLocale().name();
    QStringList tried;
    for (const QString& path : paths) {
        tried << QStringLiteral(":/") + language + path.mid(1);
        tried << path;
    }
    for (const QString& path : tried) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
            continue;
        const QString content = QString::fromUtf8(file.readAll());
        TextResource text;
        const qsizetype split = content.indexOf(QStringLiteral("\n---\n"));
        for (const QString& line : content.left(split).split(QLatin1Char('\n'))) {
            const qsizetype colon = line.indexOf(QLatin1Char(':'));
            if (colon > 0)
                text.fields.insert(line.left(colon).trimmed(), line.mid(colon + 1).trimmed());
        }
        text.body = split < 0 ? QString() : content.mid(split + 5).trimmed();
        return text;
    }
    return {};
}

} // namespace attnviz::render
