#include "app/window/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include <algorithm>
#include <memory>

namespace attnviz::app {

namespace {

struct InstalledTranslators {
    QString code = QStringLiteral("en");
    std::unique_ptr<QTranslator> own;
    std::unique_ptr<QTranslator> qt;
};

InstalledTranslators& installed()
{
    static InstalledTranslators translators;
    return translators;
}

bool known(const QString& code)
{
    return std::any_of(kLanguages.begin(), kLanguages.end(),
                       [&](const Language& l) { return code == QLatin1String(l.code); });
}

// A translator loaded from `file` in `folder`, or null when there is none (Qt's catalogues are a
// separate Debian package; without it only Qt's own buttons stay English).
std::unique_ptr<QTranslator> loaded(const QString& file, const QString& folder)
{
    auto translator = std::make_unique<QTranslator>();
    if (!translator->load(file, folder))
        return nullptr;
    QCoreApplication::installTranslator(translator.get());
    return translator;
}

} // namespace

QString systemLanguage()
{
    const QLocale system = QLocale::system();
    if (system.language() == QLocale::Chinese)
        return QStringLiteral("zh_CN");
    return QStringLiteral("en");
}

void applyLanguage(const QString& requested)
{
    const QString code = known(requested) ? requested : QStringLiteral("en");
    InstalledTranslators& t = installed();
    // Removing a translator sends LanguageChange like installing one; unique_ptr's destructor
    // removes it from the application.
    t.own.reset();
    t.qt.reset();
    t.code = code;
    QLocale::setDefault(QLocale(code));
    // English too: its catalogue holds only the singular and plural forms of counted messages.
    t.own = loaded(QStringLiteral("attnviz_") + code, QStringLiteral(":/translations"));
    if (code == QLatin1String("en"))
        return;
    t.qt = loaded(QStringLiteral("qtbase_") + code,
                  QLibraryInfo::path(QLibraryInfo::TranslationsPath));
}

QString currentLanguage()
{
    return installed().code;
}

} // namespace attnviz::app
