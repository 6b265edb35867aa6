#include "render/mistake_texts.h"

#include "render/text_resource.h"

namespace attnviz::render {

MistakeText mistakeText(engine::AttentionMistake mistake)
{
    const std::string_view name = engine::mistakeInfo(mistake).name;
    const QString key = QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
    const TextResource text = readTextResource({QStringLiteral(":/mistakes/%1.txt").arg(key)});
    if (text.fields.isEmpty())
        return {key, {}, {}};
    return {text.fields.value(QStringLiteral("title")), text.fields.value(QStringLiteral("code")),
            text.body};
}

} // namespace attnviz::render
