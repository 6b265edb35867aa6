#include "render/glossary.h"

#include "render/text_resource.h"

#include <QDir>
#include <QRegularExpression>

#include <algorithm>

namespace attnviz::render {

namespace {

// The English folder lists every key; a translation is found by readTextResource.
const QString kFolder = QStringLiteral(":/glossary");

struct Spelling {
    QString text;
    QString key;
};

bool isWordCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// Whether text[at, at + length) stands alone as a word: always for CJK, whose words are not
// separated by spaces.
bool standsAlone(const QString& text, qsizetype at, qsizetype length)
{
    const QChar first = text.at(at);
    if (first.script() == QChar::Script_Han)
        return true;
    const bool before = at == 0 || !isWordCharacter(text.at(at - 1));
    const bool after = at + length >= text.size() || !isWordCharacter(text.at(at + length));
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
    std::sort(entries.begin(), entries.end(), [](const GlossaryEntry& a, const GlossaryEntry& b) {
        return QString::localeAwareCompare(a.term, b.term) < 0;
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
    entry.explanation = text.body;
    return entry;
}

QString linkGlossaryTerms(const QString& html, const std::vector<GlossaryEntry>& entries)
{
    std::vector<Spelling> spellings;
    for (const GlossaryEntry& e : entries) {
        spellings.push_back({e.term, e.key});
        for (const QString& alias : e.aliases)
            spellings.push_back({alias, e.key});
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
                    !standsAlone(text, i, s.text.size()))
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
