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

INSTANTIATE_TEST_SUITE_P(Languages, GlossaryInLanguage, ::testing::Values("en", "zh_CN"));

} // namespace
} // namespace attnviz::render
