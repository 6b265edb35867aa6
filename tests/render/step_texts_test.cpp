// The words of a step follow the block shown: a model's masked self-attention does not speak of
// cross-attention, its cross-attention does, and the playground keeps its own first step.
#include "lesson/lesson_steps.h"
#include "lesson/playground.h"
#include "lesson/walkthrough.h"
#include "render/step_texts.h"

#include <gtest/gtest.h>

#include <QLocale>

namespace attnviz::render {
namespace {

lesson::Walkthrough modelBlock(engine::Block block, std::string model = "genesis")
{
    lesson::Walkthrough w;
    lesson::ModelBlockSource source;
    source.model = std::move(model);
    source.block = block;
    w.source = source;
    w.crossAttention = block == engine::Block::Cross;
    return w;
}

const lesson::LessonStep& inputStep()
{
    return lesson::kLessonSteps[*lesson::lessonStepIndex("input")];
}

TEST(StepTexts, AModelsMaskedSelfAttentionInputSpeaksOfItsOwnBlock)
{
    const lesson::Walkthrough masked = modelBlock(engine::Block::MaskedSelf);
    const StepText text = stepText(inputStep(), &masked);
    EXPECT_FALSE(text.explanation.contains("cross-attention")) << text.explanation.toStdString();
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.explanation.contains("self-attention"));
}

TEST(StepTexts, AModelsCrossAttentionInputNamesBothItsInputs)
{
    const lesson::Walkthrough cross = modelBlock(engine::Block::Cross);
    const StepText text = stepText(inputStep(), &cross);
    EXPECT_TRUE(text.explanation.contains("cross-attention"));
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.formula.contains("encoder"));
}

TEST(StepTexts, ThePlaygroundsInputIsEmbeddingsPlusPositions)
{
    const StepText text = stepText(inputStep(), nullptr);
    EXPECT_TRUE(text.title.contains("embeddings")) << text.title.toStdString();
    EXPECT_FALSE(text.explanation.contains("residual stream"));
}

lesson::Walkthrough playgroundCross()
{
    lesson::Walkthrough w;
    w.source = lesson::PlaygroundSource{};
    w.crossAttention = true;
    return w;
}

const lesson::LessonStep& stepNamed(const char* key)
{
    return lesson::kLessonSteps[*lesson::lessonStepIndex(key)];
}

// Runs `check` in English and in Chinese (the language of QLocale's default chooses the texts).
template <typename Check> void inBothLanguages(Check check)
{
    for (const char* language : {"en", "zh_CN"}) {
        QLocale::setDefault(QLocale(QString::fromLatin1(language)));
        check(language);
    }
    QLocale::setDefault(QLocale(QStringLiteral("en")));
}

// #23 (classroom 5): the playground's cross-attention (a second sentence) has no decoder, no
// shift by one and no reversal; a model's cross block has the shift, and only the reverse
// model speaks of reversing.
TEST(StepTexts, CrossAttentionSpeaksOnlyOfWhatTheSourceHas)
{
    inBothLanguages([](const char* language) {
        const lesson::Walkthrough playground = playgroundCross();
        const lesson::Walkthrough reverse = modelBlock(engine::Block::Cross, "reverse");
        const lesson::Walkthrough other = modelBlock(engine::Block::Cross, "translator");
        const bool zh = std::string(language) == "zh_CN";
        const QString decoder = zh ? "解码器" : "decoder";
        const QString shift = zh ? "错开一位" : "shift by one";
        const QString reverses = zh ? "反转" : "revers";
        for (const char* key : {"input", "masked", "softmax"}) {
            const QString text = stepText(stepNamed(key), &playground).explanation;
            EXPECT_FALSE(text.contains(decoder)) << language << " " << key << text.toStdString();
            EXPECT_FALSE(text.contains(shift)) << language << " " << key;
            EXPECT_FALSE(text.contains(reverses)) << language << " " << key;
        }
        const QString inReverse = stepText(stepNamed("softmax"), &reverse).explanation;
        EXPECT_TRUE(inReverse.contains(shift) && inReverse.contains(reverses))
            << language << inReverse.toStdString();
        const QString inOther = stepText(stepNamed("softmax"), &other).explanation;
        EXPECT_TRUE(inOther.contains(shift) && inOther.contains(decoder)) << language;
        EXPECT_FALSE(inOther.contains(reverses)) << language << inOther.toStdString();
        EXPECT_FALSE(stepText(stepNamed("input"), &other).explanation.contains(reverses));
        EXPECT_TRUE(stepText(stepNamed("input"), &reverse).explanation.contains(reverses));
    });
}

// No condition marker is ever shown, whatever the source.
TEST(StepTexts, ConditionMarkersNeverShow)
{
    const lesson::Walkthrough sources[] = {modelBlock(engine::Block::Self, "induction"),
                                           modelBlock(engine::Block::Cross, "reverse"),
                                           playgroundCross()};
    inBothLanguages([&](const char* language) {
        for (const lesson::LessonStep& step : lesson::kLessonSteps) {
            EXPECT_FALSE(stepText(step, nullptr).explanation.contains("[if")) << language;
            for (const lesson::Walkthrough& w : sources)
                EXPECT_FALSE(stepText(step, &w).explanation.contains("[if"))
                    << language << " " << step.key;
        }
    });
}

// #23 (classroom 9): the induction model's own softmax step explains its circuit in the app
// instead of pointing at a README.
TEST(StepTexts, TheInductionCircuitIsExplainedInTheApp)
{
    const lesson::Walkthrough induction = modelBlock(engine::Block::MaskedSelf, "induction");
    const lesson::Walkthrough genesis = modelBlock(engine::Block::MaskedSelf, "genesis");
    inBothLanguages([&](const char* language) {
        const QString own = stepText(stepNamed("softmax"), &induction).explanation;
        const QString other = stepText(stepNamed("softmax"), &genesis).explanation;
        EXPECT_FALSE(own.contains("README") || other.contains("README")) << language;
        EXPECT_TRUE(own.contains("egypt")) << language << own.toStdString();
        EXPECT_FALSE(other.contains("egypt")) << language;
        EXPECT_TRUE(other.contains("induction")) << language; // the invitation to open it
    });
}

// #25: a windowed module's mask step gives the window's reach through the layers, a grouped
// module's split its KV cache against MHA and MQA, and the online step its memory — all with
// the numbers of the module shown, in both languages.
TEST(StepTexts, TodaysVariantsSpeakInTheNumbersOfTheModuleShown)
{
    lesson::PlaygroundSettings s;
    s.querySentences = {"a b c d e f g h"};
    s.heads = 4;
    s.keyValueHeads = 2;
    s.mask = lesson::MaskKind::Causal;
    s.slidingWindow = 3;
    s.onlineSoftmaxTile = 3;
    const auto w = lesson::computePlayground(s);
    ASSERT_TRUE(w);
    inBothLanguages([&](const char* language) {
        SCOPED_TRACE(language);
        const QString masked = stepText(stepNamed("masked"), w.get()).explanation;
        EXPECT_TRUE(masked.contains("W = 3")) << masked.toStdString();
        for (const char* reach : {"4", "8", "64"}) // L · (W − 1) for 2, 4 and 32 layers
            EXPECT_TRUE(masked.contains(QString::fromLatin1(reach))) << reach;
        // D = 16, 4 heads of d_k 4, 2 K/V heads: 2 · 2 · 4 · 4 = 64 bytes a token.
        const QString split = stepText(stepNamed("split"), w.get()).explanation;
        EXPECT_TRUE(split.contains("64 ")) << split.toStdString();
        EXPECT_TRUE(split.contains("64.0 KiB")) << split.toStdString(); // 1,024 tokens
        EXPECT_TRUE(split.contains("128.0 KiB")); // MHA: 4 K/V heads
        EXPECT_TRUE(split.contains("32.0 KiB")); // MQA: one
        const QString online = stepText(stepNamed("online"), w.get()).explanation;
        EXPECT_TRUE(online.contains("8 × 8 = 64")) << online.toStdString();
        EXPECT_TRUE(online.contains("8 × 3 = 24"));
    });
    // Rotary positions: the shift's proof in numbers, not its placeholders.
    s.positions = lesson::PositionKind::Rotary;
    const auto rotary = lesson::computePlayground(s);
    inBothLanguages([&](const char* language) {
        SCOPED_TRACE(language);
        const QString text = stepText(stepNamed("rotate"), rotary.get()).explanation;
        EXPECT_TRUE(text.contains("1000")) << text.toStdString();
        EXPECT_FALSE(text.contains("{shift")) << text.toStdString();
        EXPECT_FALSE(text.contains("–")) << "the proof was not computed";
    });
    // Without a window the band is not spoken of.
    s.slidingWindow = 0;
    const auto plain = lesson::computePlayground(s);
    EXPECT_FALSE(stepText(stepNamed("masked"), plain.get()).explanation.contains("W = "));
}

} // namespace
} // namespace attnviz::render
