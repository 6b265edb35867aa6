#pragma once

#include <QMap>
#include <QString>

namespace attnviz::render {

/// A text of the lesson compiled into the program (resources/steps, resources/mistakes): header
/// lines "key: value", a line "---", then a body in HTML.
struct TextResource {
    QMap<QString, QString> fields;
    QString body;
};

/// Makes the texts compiled into the render library visible under ":/" (once; readTextResource
/// does it itself, a caller listing a folder first needs it).
void registerTextResources();

/// The first of `paths` (":/steps/…") that exists, parsed, in the language of QLocale's default
/// (":/zh_CN/steps/…") where it is translated; an empty resource if none exists.
/// Registers the resources of the static render library on first use.
TextResource readTextResource(const QStringList& paths);

} // namespace attnviz::render
