#include "lesson/playground.h"

#include "engine/input_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;
using ::testing::HasSubstr;

std::string problemsText(const PlaygroundSettings& s)
{
    std::string text;
    for (const SettingsProblem& p : checkSettings(s))
        text += p.message + "\n";
    return text;
}

TEST(Playground, DefaultSettingsAreComputable)
{
    EXPECT_EQ(problemsText(PlaygroundSettings{}), "");
    const auto w = computePlayground(PlaygroundSettings{});
    EXPECT_EQ(w->trace->weights.shapeString(), "(batch=1, head=4, query=6, key=6)");
    EXPECT_EQ(w->queryTokens[0][1], "cat");
}

TEST(Playground, HeadsThatDoNotDivideTheWidthAreExplained)
{
    PlaygroundSettings s;
    s.modelWidth = 10;
    s.heads = 3;
    EXPECT_THAT(problemsText(s), HasSubstr("D = 10 cannot be split into 3 equal heads"));
    s.queryKeySize = 4;
    s.valueSize = 2;
    EXPECT_EQ(problemsText(s), "");
    const auto w = computePlayground(s);
    EXPECT_EQ(w->dk(), 4);
    EXPECT_EQ(w->dv(), 2);
}

TEST(Playground, EmptyInputAndMismatchedCrossAttentionAreExplained)
{
    PlaygroundSettings s;
    s.querySentences = {};
    EXPECT_THAT(problemsText(s), HasSubstr("Type a sentence"));
    s.querySentences = {"a b", "c"};
    s.keyValueSentences = {"x y z"};
    EXPECT_THAT(problemsText(s), HasSubstr("one key/value sentence per query sentence (2), not 1"));
}

// The limits of the sentence fields (a lesson is read against the same ones, LessonFile tests):
// the number of sentences, characters in one, and in a word when tokens are words.
TEST(Playground, SentencesBeyondTheFieldsLimitsAreExplained)
{
    PlaygroundSettings s;
    s.querySentences = {"a", std::string(kMaxSentenceLength, ' ') + "b"};
    EXPECT_EQ(problemsText(s),
              "Batch item 1 has 4097 characters, more than the 4096 a sentence "
              "may have.\n");
    s.querySentences = {"a " + std::string(kMaxWordLength + 1, 'w')};
    EXPECT_EQ(problemsText(s),
              "Batch item 0 has a word of 101 characters, more than the 100 a word "
              "may have.\n");
    // Characters, not bytes: 100 Chinese characters are a word within the limit.
    std::string chinese;
    for (int i = 0; i < kMaxWordLength; ++i)
        chinese += "注";
    s.querySentences = {chinese};
    EXPECT_EQ(sentencesBeyondLimits(s.querySentences, TokenUnit::Word), "");
    // Character tokens have no words: a long unspaced sentence is only its tokens' business.
    s.querySentences = {std::string(200, 'c')};
    s.tokenUnit = TokenUnit::Character;
    EXPECT_EQ(problemsText(s), "");
    s.querySentences = {"q"};
    s.keyValueSentences.assign(kMaxSentences + 1, "k");
    EXPECT_THAT(problemsText(s),
                HasSubstr("There are 101 sentences, more than the 100 the "
                          "playground takes."));
    s.querySentences.assign(kMaxSentences, "q");
    s.keyValueSentences.assign(kMaxSentences, "k");
    EXPECT_EQ(problemsText(s), "");
}

TEST(Playground, BatchPaddingIsBlocked)
{
    PlaygroundSettings s;
    s.querySentences = {"the cat sat", "dogs bark"};
    const auto w = computePlayground(s);
    EXPECT_EQ(w->queryTokens[1][2], "<pad>");
    EXPECT_EQ(w->keyLengths, (std::vector<int>{3, 2}));
    EXPECT_EQ(w->trace->weights.at({1, 0, 0, 2}), 0.0f);
    EXPECT_TRUE(std::isinf(w->trace->masked.at({1, 0, 0, 2})));
}

TEST(Playground, CrossAttentionTakesKeysFromTheOtherSentence)
{
    PlaygroundSettings s;
    s.querySentences = {"le chat"};
    s.keyValueSentences = {"the black cat"};
    const auto w = computePlayground(s);
    EXPECT_TRUE(w->crossAttention);
    EXPECT_EQ(w->trace->weights.shapeString(), "(batch=1, head=4, query=2, key=3)");
}

TEST(Playground, CharacterTokensKeepMultibyteCharacters)
{
    EXPECT_EQ(tokenize("多头 ab", TokenUnit::Character),
              (std::vector<std::string>{"多", "头", "␣", "a", "b"}));
    EXPECT_EQ(tokenize("  two   words ", TokenUnit::Word),
              (std::vector<std::string>{"two", "words"}));
}

TEST(Playground, SameSeedSameWeightsOtherSeedOtherWeights)
{
    PlaygroundSettings s;
    const auto a = computePlayground(s);
    const auto b = computePlayground(s);
    EXPECT_EQ(a->weights()->wQ, b->weights()->wQ);
    s.seed = 7;
    EXPECT_NE(computePlayground(s)->weights()->wQ, a->weights()->wQ);
}

// The playground goes through the memory budget as a model run does: one 3-word sentence with
// H = 64 and d_k = d_v = d_out = 1024 took 2.2 GB and 25 s, 20 sentences of 256 words at
// D = 1024, H = 64 1.6 GB; under a limit they are refused before anything is allocated.
TEST(Playground, SettingsBeyondTheMemoryLimitAreRefusedBeforeComputing)
{
    PlaygroundSettings wide;
    wide.querySentences = {"the cat sat"};
    wide.modelWidth = 1024;
    wide.heads = 64;
    wide.queryKeySize = wide.valueSize = wide.outputWidth = 1024;
    ASSERT_EQ(problemsText(wide), "");
    EXPECT_GT(playgroundBytes(wide), 1ull << 30); // W_q, W_k, W_v and W_o: 268 M numbers
    try {
        computePlayground(wide, 512ull << 20);
        ADD_FAILURE() << "computed under a limit its weights alone exceed";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("Computing these playground settings needs about 1.0 GiB"));
        EXPECT_THAT(e.what(), HasSubstr("the memory limit you set allows 512.0 MiB"));
    }

    PlaygroundSettings long20;
    long20.modelWidth = 1024;
    long20.heads = 64;
    std::string sentence;
    for (int i = 0; i < 256; ++i)
        sentence += "w" + std::to_string(i) + " ";
    long20.querySentences.assign(20, sentence);
    ASSERT_EQ(problemsText(long20), "");
    // four score-shaped steps of 20 × 64 × 256 × 256 numbers
    EXPECT_GT(playgroundBytes(long20), 20ull * 64 * 256 * 256 * 4 * 4);
    EXPECT_THROW(computePlayground(long20, 1ull << 30), engine::InputError);

    // Heads switched off compute the intact run beside it: twice the memory.
    PlaygroundSettings ablated = PlaygroundSettings{};
    const std::uint64_t intact = playgroundBytes(ablated);
    ablated.ablatedHeads = {1};
    EXPECT_EQ(playgroundBytes(ablated), 2 * intact);
}

// The estimate covers at least what a computation keeps: every step of the trace and the weights.
TEST(Playground, TheMemoryEstimateCoversTheTraceAndTheWeights)
{
    PlaygroundSettings s;
    s.querySentences = {"a b c d e f g h", "i j k"};
    s.keyValueSentences = {"x y z", "u v w t s"};
    s.modelWidth = 24;
    s.heads = 6;
    s.keyValueHeads = 2;
    s.queryKeySize = 8;
    s.valueSize = 5;
    s.outputWidth = 7;
    ASSERT_EQ(problemsText(s), "");
    const auto w = computePlayground(s);
    std::uint64_t kept = 0;
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        if (w->trace->has(info.step))
            kept += static_cast<std::uint64_t>(w->trace->step(info.step).size()) * sizeof(float);
    const engine::AttentionWeights& weights = w->module->weights();
    for (const auto* m : {&weights.wQ, &weights.wK, &weights.wV, &weights.wO})
        kept += static_cast<std::uint64_t>(m->size()) * sizeof(float);
    EXPECT_GE(playgroundBytes(s), kept);
    EXPECT_LE(playgroundBytes(s), 3 * kept) << "an estimate far above what is kept refuses "
                                               "settings that would fit";
}

TEST(Playground, CustomMaskCellOutsideTheMatrixIsExplained)
{
    PlaygroundSettings s;
    s.mask = MaskKind::Custom;
    s.blockedCells = {{9, 0}};
    EXPECT_THAT(problemsText(s), HasSubstr("outside the 6 × 6 score matrix"));
}

TEST(Playground, ImpossibleTreatmentsAreExplainedAtTheirFields)
{
    const std::pair<void (*)(PlaygroundSettings&), SettingsField> bad[] = {
        {[](PlaygroundSettings& s) { s.rotaryDim = 2; }, SettingsField::RotaryDim},
        {[](PlaygroundSettings& s) {
             s.positions = PositionKind::Rotary;
             s.rotaryDim = 3;
         },
         SettingsField::RotaryDim},
        {[](PlaygroundSettings& s) {
             s.positions = PositionKind::Rotary;
             s.rotaryDim = 6; // d_k = 4
         },
         SettingsField::RotaryDim},
        {[](PlaygroundSettings& s) { s.scoreScale = -1; }, SettingsField::ScoreScale},
        {[](PlaygroundSettings& s) { s.scoreScale = NAN; }, SettingsField::ScoreScale},
        {[](PlaygroundSettings& s) { s.softCap = 1e6; }, SettingsField::SoftCap},
        {[](PlaygroundSettings& s) { s.softCap = -INFINITY; }, SettingsField::SoftCap},
    };
    for (const auto& [edit, field] : bad) {
        PlaygroundSettings s;
        edit(s);
        const auto problems = checkSettings(s);
        ASSERT_EQ(problems.size(), 1u);
        EXPECT_EQ(problems[0].field, field) << problems[0].message;
        EXPECT_EQ(problems[0].message.find('\n'), std::string::npos);
    }
}

TEST(Playground, TreatmentsReachTheModuleAndKeepTheOtherWeights)
{
    PlaygroundSettings s;
    s.positions = PositionKind::Rotary;
    s.mask = MaskKind::Causal;
    const auto plain = computePlayground(s);
    s.rotaryDim = 2;
    s.queryKeyNorm = QueryKeyNormKind::PerHead;
    s.scoreScale = 0.25;
    s.softCap = 5;
    s.learnedSinks = true;
    const auto treated = computePlayground(s);
    const engine::AttentionDescription& d = treated->description();
    EXPECT_EQ(d.rotatedSize(), 2);
    EXPECT_TRUE(d.queryKeyNorm.has_value());
    EXPECT_EQ(d.scoreScale, 0.25);
    EXPECT_EQ(d.logitSoftCap, 5.0);
    EXPECT_TRUE(d.learnedSinks);
    for (const AttentionStep step :
         {AttentionStep::QNormed, AttentionStep::Capped, AttentionStep::SinkWeights})
        EXPECT_TRUE(treated->trace->has(step)) << engine::stepName(step);
    // The treatments' weights come after the projections' in the seed's stream.
    EXPECT_EQ(treated->weights()->wQ, plain->weights()->wQ);
    EXPECT_EQ(treated->weights()->wO, plain->weights()->wO);
    EXPECT_EQ(treated->trace->qProj.matrix({0}), plain->trace->qProj.matrix({0}));
    // ALiBi's geometric slopes, one per head.
    s = {};
    s.positions = PositionKind::Alibi;
    const auto alibi = computePlayground(s);
    ASSERT_TRUE(alibi->description().scoreBias.has_value());
    EXPECT_EQ(alibi->description().scoreBias->slopes,
              (std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f}));
    EXPECT_TRUE(alibi->trace->has(AttentionStep::Biased));
}

} // namespace
} // namespace attnviz::lesson
