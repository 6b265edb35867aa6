#include "render/mistake_texts.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace attnviz::render
