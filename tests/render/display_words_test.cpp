// The words the lesson layer writes are shown in the interface's language: whole sentences
// before their words, numbers carried into the translation, whole words only, and English
// untouched when no translation is installed (attnviz-cli, exports from scripts).
#include "gui_application.h"
#include "render/display_words.h"

#include <QCoreApplication>
#include <QHash>
#include <QTranslator>

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

// A catalogue of a few phrases, as the compiled Chinese one would answer.
class StandInTranslator : public QTranslator {
public:
    bool isEmpty() const override { return false; }
    QString translate(const char* context, const char* source, const char*, int) const override
    {
        static const QHash<QString, QString> phrases{
            {"query", "查询"},
            {"key", "键"},
            {"head {1}", "头 {1}"},
            {"the output of encoder layer {1}", "编码器第 {1} 层的输出"},
            {"item {1} sees keys {2}–{3}", "批量样本 {1} 看到键 {2}–{3}"},
            {"{1} parameters", "{1} 个参数"}};
        if (QLatin1String(context) != QLatin1String("DisplayWords"))
            return {};
        return phrases.value(QString::fromUtf8(source));
    }
};

class DisplayWords : public testing::Test {
protected:
    static void SetUpTestSuite() { test::ensureGuiApplication(); }
    void install() { QCoreApplication::installTranslator(&m_translator); }
    void TearDown() override { QCoreApplication::removeTranslator(&m_translator); }

private:
    StandInTranslator m_translator;
};

TEST_F(DisplayWords, EnglishStaysAsWrittenWithoutATranslation)
{
    EXPECT_EQ(displayed("head 2 · softmax"), QString("head 2 · softmax"));
    EXPECT_EQ(displayed("weights (batch=1, head=4, query=6, key=6)"),
              QString("weights (batch=1, head=4, query=6, key=6)"));
}

TEST_F(DisplayWords, SentencesAndNumbersAreTranslatedWhole)
{
    install();
    EXPECT_EQ(displayed("X = the output of encoder layer 3"), QString("X = 编码器第 3 层的输出"));
    EXPECT_EQ(displayed("head 12 · softmax"), QString("头 12 · softmax"));
    EXPECT_EQ(displayed("item 0 sees keys 0–4; item 1 sees keys 0–2"),
              QString("批量样本 0 看到键 0–4; 批量样本 1 看到键 0–2"));
    // A grouped number stays one number.
    EXPECT_EQ(displayed("W_o 16×16 = 1,088 parameters"), QString("W_o 16×16 = 1,088 个参数"));
}

TEST_F(DisplayWords, OnlyWholeWordsAreTranslated)
{
    install();
    EXPECT_EQ(displayed("scores (batch=1, query=6, key=6)"),
              QString("scores (batch=1, 查询=6, 键=6)"));
    // "keys", "W_key" and "monkey" are other words; only the lone "key" is the axis.
    EXPECT_EQ(displayed("keys W_key monkey key"), QString("keys W_key monkey 键"));
}

TEST_F(DisplayWords, QuotedTokensAreTheUsersWordsAndStayAsTyped)
{
    install();
    EXPECT_EQ(displayed("key 3 “key”, key 4 “head 1”"), QString("键 3 “key”, 键 4 “head 1”"));
}

} // namespace
} // namespace attnviz::render
