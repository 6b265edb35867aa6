#include "render/glossary.h"

#include "render/text_resource.h"

#include <QCollator>
#include <QDir>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>

namespace attnviz::render {

namespace {

// The English folder lists every key; a translation is found by readTextResource.
const QString kFolder = QStringLiteral(":/glossary");

struct Spelling {
    QString text;
    QString key;
    const QStringList* notInside;
};

bool isHan(QChar c)
{
    return c.script() == QChar::Script_Han;
}

// A letter of a Latin word; a Chinese character next to a Latin term is a word boundary
// ("用softmax归一化").
bool isWordCharacter(QChar c)
{
    return (c.isLetterOrNumber() && !isHan(c)) || c == QLatin1Char('_');
}

// Whether text[at, at + length) is one of the words a term may not be linked inside: some word
// w of `notInside` holds the spelling at an offset o where text[at - o, at - o + |w|) is w.
bool insideOtherWord(const QString& text, qsizetype at, const QString& spelling,
                     const QStringList& notInside)
{
    for (const QString& word : notInside) {
        for (qsizetype o = word.indexOf(spelling); o >= 0; o = word.indexOf(spelling, o + 1)) {
            if (at - o >= 0 && text.mid(at - o, word.size()) == word)
                return true;
        }
    }
    return false;
}

// Whether text[at, at + length) stands alone as a word.
//
// Latin: a whole word (no letter, digit or underscore on either side).
// Chinese has no spaces between words, so a term written in Chinese characters is accepted where
// it stands, with two rules: the longest spelling at a position wins (the caller tries longer
// spellings first, so 多头注意力 is linked, not 头), and a term is never linked inside one of
// its entry's notInside words (值 inside 均值 or 最大值, 头 inside 开头 or "JSON 头"). A rule
// on the neighbouring characters would not do: 头 stands between two Chinese characters in
// 每个头的 just as in 开头的, and only a word list tells them apart. The lists are short and kept
// with each term's translation (resources/zh_CN/glossary/value.txt, head.txt).
bool standsAlone(const QString& text, qsizetype at, qsizetype length)
{
    if (isHan(text.at(at)) && isHan(text.at(at + length - 1)))
        return true;
    const bool before = at == 0 || isHan(text.at(at)) || !isWordCharacter(text.at(at - 1));
    const bool after = at + length >= text.size() || isHan(text.at(at + length - 1)) ||
        !isWordCharacter(text.at(at + length));
    return before && after;
}

} // namespace

std::vector<GlossaryEntry> glossary()
{
    registerTextResources();
    std::vector<GlossaryEntry> entries;
    const QStringList files = QDir(kFolder).entryList({QStringLiteral("*.txt")}, QDir::Files);
    for (const QString& file : files) {
        GlossaryEntry entry = glossaryEntry(file.chopped(4));
        if (!entry.term.isEmpty())
            entries.push_back(std::move(entry));
    }
    // QString::localeAwareCompare follows the process's LC_COLLATE, not the language the app
    // shows; a collator for QLocale's default sorts in the interface language.
    const QCollator collator{QLocale()};
    std::sort(entries.begin(), entries.end(),
              [&collator](const GlossaryEntry& a, const GlossaryEntry& b) {
                  const int order = collator.compare(a.term, b.term);
                  return order != 0 ? order < 0 : a.key < b.key;
              });
    return entries;
}

GlossaryEntry glossaryEntry(const QString& key)
{
    const TextResource text = readTextResource({kFolder + QLatin1Char('/') + key + ".txt"});
    GlossaryEntry entry;
    entry.key = key;
    entry.term = text.fields.value(QStringLiteral("term"));
    for (const QString& alias :
         text.fields.value(QStringLiteral("aliases")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!alias.trimmed().isEmpty())
            entry.aliases << alias.trimmed();
    for (const QString& word :
         text.fields.value(QStringLiteral("not")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!word.trimmed().isEmpty())
            entry.notInside << word.trimmed();
    entry.explanation = text.body;
    return entry;
}

QString linkGlossaryTerms(const QString& html, const std::vector<GlossaryEntry>& entries)
{
    std::vector<Spelling> spellings;
    for (const GlossaryEntry& e : entries) {
        spellings.push_back({e.term, e.key, &e.notInside});
        for (const QString& alias : e.aliases)
            spellings.push_back({alias, e.key, &e.notInside});
    }
    std::stable_sort(spellings.begin(), spellings.end(), [](const Spelling& a, const Spelling& b) {
        return a.text.size() > b.text.size();
    });
    QStringList linked; // keys already linked once
    QString out;
    static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
    qsizetype at = 0;
    int insideLink = 0;
    const auto linkText = [&](const QString& text) {
        if (insideLink > 0) {
            out += text;
            return;
        }
        qsizetype i = 0;
        while (i < text.size()) {
            bool matched = false;
            // An entity (&lt;) is one character of text, never the start of a term.
            if (text.at(i) == QLatin1Char('&')) {
                const qsizetype end = text.indexOf(QLatin1Char(';'), i);
                if (end > i && end - i < 10) {
                    out += text.mid(i, end - i + 1);
                    i = end + 1;
                    continue;
                }
            }
            for (const Spelling& s : spellings) {
                if (s.text.isEmpty() || linked.contains(s.key))
                    continue;
                // A short spelling (Q, K, H, D) is a symbol: "k" in "letter k" is not a key.
                const Qt::CaseSensitivity cs =
                    s.text.size() <= 2 ? Qt::CaseSensitive : Qt::CaseInsensitive;
                if (text.mid(i, s.text.size()).compare(s.text, cs) != 0 ||
                    !standsAlone(text, i, s.text.size()) ||
                    insideOtherWord(text, i, s.text, *s.notInside))
                    continue;
                out += QStringLiteral("<a href=\"%1:%2\">%3</a>")
                           .arg(kGlossaryScheme, s.key, text.mid(i, s.text.size()));
                linked << s.key;
                i += s.text.size();
                matched = true;
                break;
            }
            if (!matched)
                out += text.at(i++);
        }
    };
    for (auto m = tag.globalMatch(html); m.hasNext();) {
        const QRegularExpressionMatch match = m.next();
        linkText(html.mid(at, match.capturedStart() - at));
        const QString t = match.captured();
        if (t.startsWith(QLatin1String("<a ")) || t == QLatin1String("<a>"))
            ++insideLink;
        else if (t.startsWith(QLatin1String("</a")))
            insideLink = std::max(0, insideLink - 1);
        out += t;
        at = match.capturedEnd();
    }
    linkText(html.mid(at));
    return out;
}

} // namespace attnviz::render
