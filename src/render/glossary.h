#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace attnviz::render {

/// A term of the glossary, read from resources/glossary/<key>.txt (or the language's
/// translation): the term as the app writes it, the other spellings its texts use, and a short
/// explanation in HTML.
struct GlossaryEntry {
    QString key;
    QString term;
    QStringList aliases;
    QString explanation;
};

/// Every entry, sorted by term, in the language of QLocale's default.
std::vector<GlossaryEntry> glossary();

/// The entry with this key, or an empty entry (no term) when there is none.
GlossaryEntry glossaryEntry(const QString& key);

/// The scheme of the links linkGlossaryTerms writes: "glossary:<key>".
inline const QString kGlossaryScheme = QStringLiteral("glossary");

/// `html` with the first mention of every glossary term (or alias) made a link
/// "glossary:<key>", so a click or a hover explains it. Only text is linked, never tags,
/// attributes or what is already a link; longer terms win over the terms inside them
/// ("multi-head attention" before "attention"), a Latin term is matched as a whole word, and a
/// spelling of one or two characters (a symbol such as K) only with its exact case.
QString linkGlossaryTerms(const QString& html, const std::vector<GlossaryEntry>& entries);

} // namespace attnviz::render
