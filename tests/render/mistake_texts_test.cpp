#include "render/mistake_texts.h"

#include <gtest/gtest.h>

#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

namespace attnviz::render {
namespace {

// Every mistake the engine can make has its words: a title, the mistaken line and its fix, and
// an explanation that says how to recognise it.
TEST(MistakeTexts, EveryMistakeHasATitleCodeAndHowToRecogniseIt)
{
    QStringList titles;
    for (const engine::AttentionMistakeInfo& info : engine::kAttentionMistakeTable) {
        SCOPED_TRACE(std::string(info.name));
        const MistakeText text = mistakeText(info.mistake);
        EXPECT_FALSE(text.title.isEmpty());
        EXPECT_NE(text.title, QString::fromLatin1(info.name.data(), info.name.size()));
        EXPECT_TRUE(text.code.contains(QStringLiteral("should be")) ||
                    text.code.contains(QStringLiteral("#")));
        EXPECT_TRUE(text.explanation.contains(QStringLiteral("How to recognise it")));
        titles << text.title;
    }
    titles.removeDuplicates();
    EXPECT_EQ(titles.size(), static_cast<qsizetype>(engine::kAttentionMistakeTable.size()));
}

// #23 (classroom 2): in Chinese the comment on the mistaken line is Chinese; its Latin words are
// the code's own names (dim, mask, w_o), softmax, inf and AttnViz.
TEST(MistakeTexts, TheCodeCommentsAreInTheInterfacesLanguage)
{
    QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z_0-9]*"));
    // Code the comment quotes: a call chain (q.view(…).transpose(…), self.w_o).
    static const QRegularExpression chain(QStringLiteral("\\w*(?:\\.\\w+)+"));
    for (const engine::AttentionMistakeInfo& info : engine::kAttentionMistakeTable) {
        SCOPED_TRACE(std::string(info.name));
        const QString code = mistakeText(info.mistake).code;
        const qsizetype hash = code.indexOf(QStringLiteral("  #"));
        ASSERT_GT(hash, 0) << code.toStdString();
        const QString line = code.left(hash);
        const QString comment = code.mid(hash).remove(chain);
        EXPECT_TRUE(std::any_of(comment.begin(), comment.end(), [](QChar c) {
            return c.script() == QChar::Script_Han;
        })) << comment.toStdString();
        QStringList names{QStringLiteral("AttnViz"), QStringLiteral("softmax"),
                          QStringLiteral("inf")};
        for (auto it = word.globalMatch(line); it.hasNext();)
            names << it.next().captured();
        for (auto it = word.globalMatch(comment); it.hasNext();) {
            const QString w = it.next().captured();
            EXPECT_TRUE(w.size() < 3 || names.contains(w) || w.contains(QLatin1Char('_')))
                << w.toStdString() << " in " << comment.toStdString();
        }
    }
    QLocale::setDefault(QLocale(QStringLiteral("en")));
}

} // namespace
} // namespace attnviz::render
