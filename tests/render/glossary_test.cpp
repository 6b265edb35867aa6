// The glossary (#13): every term has an explanation in both languages, and the step texts link
// the terms they mention, in text only and once each.
#include "lesson/lesson_steps.h"
#include "render/glossary.h"
#include "render/step_texts.h"

#include <QLocale>

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

std::vector<GlossaryEntry> sampleEntries()
{
    return {{"attention", "attention", {}, "<p>a</p>"},
            {"multi_head_attention", "multi-head attention", {"MHA"}, "<p>m</p>"},
            {"head", "head", {"heads", "头"}, "<p>h</p>"},
            {"d_k", "d_k", {"Pqk"}, "<p>d</p>"}};
}

TEST(Glossary, LongerTermsWinAndEachTermIsLinkedOnce)
{
    const QString linked = linkGlossaryTerms(
        "<p>Multi-head attention runs several heads; attention again, heads again.</p>",
        sampleEntries());
    EXPECT_EQ(linked.toStdString(),
              "<p><a href=\"glossary:multi_head_attention\">Multi-head attention</a> runs "
              "several <a href=\"glossary:head\">heads</a>; <a href=\"glossary:attention\">"
              "attention</a> again, heads again.</p>");
}

TEST(Glossary, TagsAttributesLinksAndPartsOfWordsAreLeftAlone)
{
    const QString html = "<p title=\"attention\">overhead d_kv <a href=\"x\">attention</a> "
                         "&lt;head&gt;</p>";
    const QString linked = linkGlossaryTerms(html, sampleEntries());
    EXPECT_EQ(linked.toStdString(),
              "<p title=\"attention\">overhead d_kv <a href=\"x\">attention</a> "
              "&lt;<a href=\"glossary:head\">head</a>&gt;</p>");
}

TEST(Glossary, SymbolsMatchOnlyWithTheirCase)
{
    std::vector<GlossaryEntry> entries = sampleEntries();
    entries.push_back({"key", "key", {"K"}, "<p>k</p>"});
    const QString linked = linkGlossaryTerms("<p>letter k, then K</p>", entries);
    EXPECT_EQ(linked.toStdString(), "<p>letter k, then <a href=\"glossary:key\">K</a></p>");
}

TEST(Glossary, ChineseTermsAreFoundWithoutSpaces)
{
    const QString linked = linkGlossaryTerms("<p>每个头都有自己的权重</p>", sampleEntries());
    EXPECT_EQ(linked.toStdString(), "<p>每个<a href=\"glossary:head\">头</a>都有自己的权重</p>");
}

// #23: Chinese has no spaces, so a one-character term (值 value, 头 head) is not linked inside
// the words listed as its entry's notInside (均值 mean, 最大值 maximum, 开头 beginning,
// "JSON 头" a JSON header); everywhere else it still is, and the longest term wins.
std::vector<GlossaryEntry> chineseEntries()
{
    return {{"value", "值", {"value", "V"}, "<p>v</p>", {"均值", "最大值", "数值"}},
            {"head", "头", {"head", "注意力头"}, "<p>h</p>", {"开头", "JSON 头"}},
            {"multi_head_attention", "多头注意力", {}, "<p>m</p>", {}},
            {"softmax", "softmax", {}, "<p>s</p>", {}}};
}

TEST(Glossary, ChineseTermsAreNotLinkedInsideOtherWords)
{
    for (const char* text :
         {"<p>每一行平移到均值 0</p>", "<p>先减去该行最大值</p>", "<p>一个 JSON 头写明每个张量</p>",
          "<p>片段以 ## 开头。</p>", "<p>让数值保持在便于训练的范围内</p>"}) {
        const QString linked = linkGlossaryTerms(QString::fromUtf8(text), chineseEntries());
        EXPECT_EQ(linked, QString::fromUtf8(text)) << text;
    }
}

TEST(Glossary, ChineseTermsStillLinkWhereTheyAreTheWord)
{
    EXPECT_EQ(linkGlossaryTerms("<p>第 0 行是头 0 对</p>", chineseEntries()).toStdString(),
              "<p>第 0 行是<a href=\"glossary:head\">头</a> 0 对</p>");
    EXPECT_EQ(linkGlossaryTerms("<p>每个头中值和上下文</p>", chineseEntries()).toStdString(),
              "<p>每个<a href=\"glossary:head\">头</a>中<a href=\"glossary:value\">值</a>"
              "和上下文</p>");
    // After the word that is not the term, the term itself is linked where it stands.
    EXPECT_EQ(linkGlossaryTerms("<p>平移到均值 0，再对值加权，文本开头的头</p>", chineseEntries())
                  .toStdString(),
              "<p>平移到均值 0，再对<a href=\"glossary:value\">值</a>加权，文本开头的"
              "<a href=\"glossary:head\">头</a></p>");
    // The longest term at a position wins: 多头注意力, not its 头.
    EXPECT_EQ(linkGlossaryTerms("<p>多头注意力</p>", chineseEntries()).toStdString(),
              "<p><a href=\"glossary:multi_head_attention\">多头注意力</a></p>");
}

TEST(Glossary, ALatinTermNextToChineseIsAWholeWord)
{
    EXPECT_EQ(linkGlossaryTerms("<p>用softmax归一化</p>", chineseEntries()).toStdString(),
              "<p>用<a href=\"glossary:softmax\">softmax</a>归一化</p>");
    EXPECT_EQ(linkGlossaryTerms("<p>softmaxes</p>", chineseEntries()).toStdString(),
              "<p>softmaxes</p>");
}

class GlossaryInLanguage : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override { QLocale::setDefault(QLocale(QString::fromLatin1(GetParam()))); }
    void TearDown() override { QLocale::setDefault(QLocale(QStringLiteral("en"))); }
};

TEST_P(GlossaryInLanguage, EveryEntryHasATermAndAnExplanation)
{
    const std::vector<GlossaryEntry> entries = glossary();
    EXPECT_GE(entries.size(), 30u);
    for (const GlossaryEntry& e : entries) {
        EXPECT_FALSE(e.term.isEmpty()) << e.key.toStdString();
        EXPECT_GT(e.explanation.size(), 40) << e.key.toStdString();
    }
}

TEST_P(GlossaryInLanguage, EveryStepTextLinksSomeTerm)
{
    const std::vector<GlossaryEntry> entries = glossary();
    for (const lesson::LessonStep& step : lesson::kLessonSteps) {
        const QString linked = linkGlossaryTerms(stepText(step).explanation, entries);
        EXPECT_TRUE(linked.contains("href=\"glossary:")) << step.key;
    }
}

TEST(GlossaryInChinese, NoTextLinksATermInsideAWordThatIsNotIt)
{
    QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
    const std::vector<GlossaryEntry> entries = glossary();
    QStringList texts;
    for (const lesson::LessonStep& step : lesson::kLessonSteps)
        texts << stepText(step).explanation;
    for (const GlossaryEntry& e : entries) {
        std::vector<GlossaryEntry> others;
        for (const GlossaryEntry& o : entries)
            if (o.key != e.key)
                others.push_back(o);
        texts << linkGlossaryTerms(e.explanation, others);
    }
    int wordsSeen = 0;
    for (const GlossaryEntry& e : entries) {
        for (const QString& word : e.notInside) {
            for (const QString& spelling : QStringList{e.term} + e.aliases) {
                const qsizetype at = word.indexOf(spelling);
                if (at < 0)
                    continue;
                const QString wrong = word.left(at) +
                    QStringLiteral("<a href=\"glossary:%1\">%2</a>").arg(e.key, spelling) +
                    word.mid(at + spelling.size());
                for (const QString& text : texts) {
                    const QString linked = linkGlossaryTerms(text, entries);
                    wordsSeen += text.contains(word);
                    EXPECT_FALSE(linked.contains(wrong)) << wrong.toStdString();
                }
            }
        }
    }
    // 均值 (layer norm), 最大值 (softmax), 开头 (WordPiece), JSON 头 (safetensors) at least.
    EXPECT_GE(wordsSeen, 4);
    for (const char* key : {"value", "head"}) {
        const GlossaryEntry e = glossaryEntry(QString::fromLatin1(key));
        EXPECT_FALSE(e.notInside.isEmpty()) << key;
    }
    QLocale::setDefault(QLocale(QStringLiteral("en")));
}

TEST(GlossaryInChinese, TheSafetensorsAndLayerNormTextsDoNotLinkHeadOrValue)
{
    QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
    const std::vector<GlossaryEntry> entries = glossary();
    const QString safetensors =
        linkGlossaryTerms(glossaryEntry("safetensors").explanation, entries);
    EXPECT_TRUE(safetensors.contains(QStringLiteral("JSON 头"))) << safetensors.toStdString();
    EXPECT_FALSE(safetensors.contains(QStringLiteral("glossary:head")));
    const QString layerNorm = linkGlossaryTerms(glossaryEntry("layer_norm").explanation, entries);
    EXPECT_TRUE(layerNorm.contains(QStringLiteral("均值 0")));
    EXPECT_FALSE(layerNorm.contains(QStringLiteral("glossary:value")));
    QLocale::setDefault(QLocale(QStringLiteral("en")));
}

// #23: the list of terms is in the order of the language: alphabetical in English, by pinyin in
// Chinese (词元 cíyuán < 多头注意力 duōtóu < 头 tóu < 值 zhí < 注意力 zhùyìlì < 自注意力 zì).
TEST(GlossaryInChinese, TermsAreSortedByPinyin)
{
    QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
    QStringList terms;
    for (const GlossaryEntry& e : glossary())
        terms << e.term;
    QLocale::setDefault(QLocale(QStringLiteral("en")));
    const QStringList inOrder{"残差流", "层归一化", "查询",   "词元",    "多头注意力",
                              "头",     "值",       "注意力", "自注意力"};
    qsizetype last = -1;
    for (const QString& term : inOrder) {
        const qsizetype at = terms.indexOf(term);
        ASSERT_GE(at, 0) << term.toStdString();
        EXPECT_GT(at, last) << term.toStdString() << " in " << terms.join(' ').toStdString();
        last = at;
    }
}

TEST(GlossaryInEnglish, TermsAreSortedAlphabetically)
{
    QLocale::setDefault(QLocale(QStringLiteral("en")));
    QStringList terms;
    for (const GlossaryEntry& e : glossary())
        terms << e.term.toLower();
    QStringList sorted = terms;
    sorted.sort();
    // The collator ignores the underscore of d_k; a plain sort of lower case agrees elsewhere.
    EXPECT_LT(terms.indexOf("attention"), terms.indexOf("bpe"));
    EXPECT_LT(terms.indexOf("query"), terms.indexOf("value"));
    EXPECT_EQ(terms.first(), sorted.first());
    EXPECT_EQ(terms.last(), sorted.last());
}

INSTANTIATE_TEST_SUITE_P(Languages, GlossaryInLanguage, ::testing::Values("en", "zh_CN"));

} // namespace
} // namespace attnviz::render
