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
    /// Words that contain a spelling of this term but are another word ("not:" in the text
    /// file): 均值 (mean) contains 值 (value), 开头 (beginning) contains 头 (head). The term is
    /// never linked inside one of them. Chinese writes no spaces between words, so a
    /// one-character term cannot be told from a part of a longer word by its neighbours alone.
    QStringList notInside;
};

/// Every entry, in the language of QLocale's default, sorted by term with that language's
/// collation: alphabetically in English, by pinyin in Chinese (ICU's zh_CN collation; Chinese
/// terms come before the ones written in Latin letters, BPE or softmax).
std::vector<GlossaryEntry> glossary();

/// The entry with this key, or an empty entry (no term) when there is none.
GlossaryEntry glossaryEntry(const QString& key);

/// The scheme of the links linkGlossaryTerms writes: "glossary:<key>".
inline const QString kGlossaryScheme = QStringLiteral("glossary");

/// `html` with the first mention of every glossary term (or alias) made a link
/// "glossary:<key>", so a click or a hover explains it. Only text is linked, never tags,
/// attributes or what is already a link; longer terms win over the terms inside them
/// ("multi-head attention" before "attention"), a Latin term is matched as a whole word (a
/// neighbouring Chinese character counts as a word boundary), a spelling of one or two characters
/// (a symbol such as K) only with its exact case, and a Chinese term wherever it stands unless it
/// is part of one of the entry's notInside words (值 in 均值, 头 in 开头).
QString linkGlossaryTerms(const QString& html, const std::vector<GlossaryEntry>& entries);

} // namespace attnviz::render
