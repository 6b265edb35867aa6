// The saved-lesson format (.attnviz): a round trip keeps every field, and every kind of damage is
// refused with one sentence that names the member at fault.
#include "engine/input_error.h"
#include "lesson/lesson_file.h"
#include "lesson/playground.h"

#include "io/input_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace attnviz::lesson {
namespace {

LessonFile modelLesson()
{
    LessonFile l;
    l.model.folder = "reverse";
    l.model.text = "attention \"quoted\" <s> 注意力";
    l.model.target = "noitnetta";
    l.model.generate = 3;
    l.model.ablation.heads = {{0, engine::Block::Cross, 2}, {1, engine::Block::MaskedSelf, 0}};
    l.step = "softmax";
    l.choice = {1, engine::Block::Cross, 4};
    l.alternative = 1;
    l.focusedHead = 3;
    l.sharedColourRange = true;
    l.numbersInCells = true;
    l.language = "zh_CN";
    return l;
}

LessonFile playgroundLesson()
{
    LessonFile l;
    l.playground.querySentences = {"the cat sat", "我 爱 你"};
    l.playground.keyValueSentences = {"a b c d"};
    l.playground.tokenUnit = TokenUnit::Character;
    l.playground.positions = PositionKind::None;
    l.playground.modelWidth = 24;
    l.playground.heads = 3;
    l.playground.queryKeySize = 5;
    l.playground.valueSize = 7;
    l.playground.outputWidth = 9;
    l.playground.bias = false;
    l.playground.mask = MaskKind::Custom;
    l.playground.blockedCells = {{0, 1}, {2, 3}};
    l.playground.validLengths = "[[1, 3], [2, 4]]";
    l.playground.ablatedHeads = {1, 2};
    l.playground.seed = 2000000000u;
    l.step = "masked";
    l.batch = 1;
    return l;
}

std::string refusal(const std::string& text)
{
    try {
        parseLessonFile(text);
    } catch (const engine::InputError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(LessonFile, ModelLessonSurvivesARoundTrip)
{
    const LessonFile saved = modelLesson();
    EXPECT_EQ(parseLessonFile(lessonFileText(saved)), saved);
}

TEST(LessonFile, PlaygroundLessonSurvivesARoundTrip)
{
    const LessonFile saved = playgroundLesson();
    EXPECT_EQ(parseLessonFile(lessonFileText(saved)), saved);
}

TEST(LessonFile, TodaysAttentionNeedsVersionTwoAndSurvivesARoundTrip)
{
    LessonFile saved = playgroundLesson();
    EXPECT_NE(lessonFileText(saved).find("\"version\": 1,"), std::string::npos)
        << "a lesson without the new members stays readable by version 1";
    saved.playground.heads = 6;
    saved.playground.keyValueHeads = 2;
    saved.playground.positions = PositionKind::Rotary;
    saved.playground.ropeTheta = 500000;
    saved.playground.mask = MaskKind::Causal;
    saved.playground.slidingWindow = 3;
    const std::string text = lessonFileText(saved);
    EXPECT_NE(text.find("\"version\": 2,"), std::string::npos) << text;
    EXPECT_NE(text.find("\"positions\": \"rotary\""), std::string::npos) << text;
    EXPECT_EQ(parseLessonFile(text), saved);
    EXPECT_NE(refusal(R"({"format": "attnviz-lesson", "version": 2,
                          "playground": {"positions": "absolute"}})")
                  .find("positions"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"format": "attnviz-lesson", "version": 2,
                          "playground": {"rope_theta": "big"}})")
                  .find("rope_theta"),
              std::string::npos);
}

TEST(LessonFile, TheTreatmentsOf2026NeedVersionThreeAndSurviveARoundTrip)
{
    LessonFile saved = playgroundLesson();
    saved.playground.positions = PositionKind::Rotary;
    saved.playground.mask = MaskKind::Causal;
    saved.playground.slidingWindow = 3;
    EXPECT_NE(lessonFileText(saved).find("\"version\": 2,"), std::string::npos)
        << "rotary positions and a window alone stay readable by version 2";
    const std::pair<const char*, void (*)(PlaygroundSettings&)> treatments[] = {
        {"\"rotary_dim\": 2", [](PlaygroundSettings& s) { s.rotaryDim = 2; }},
        {"\"qk_norm\": \"whole_projection\"",
         [](PlaygroundSettings& s) {
             s.queryKeyNorm = QueryKeyNormKind::WholeProjection;
             s.queryKeyNormUnitOffset = true;
         }},
        {"\"score_scale\": 0.0625", [](PlaygroundSettings& s) { s.scoreScale = 0.0625; }},
        {"\"attn_logit_softcapping\": 50", [](PlaygroundSettings& s) { s.softCap = 50; }},
        {"\"learned_sinks\": true", [](PlaygroundSettings& s) { s.learnedSinks = true; }},
        {"\"positions\": \"alibi\"",
         [](PlaygroundSettings& s) { s.positions = PositionKind::Alibi; }},
    };
    for (const auto& [member, edit] : treatments) {
        LessonFile one = saved;
        edit(one.playground);
        const std::string text = lessonFileText(one);
        EXPECT_NE(text.find("\"version\": 3,"), std::string::npos) << member << "\n" << text;
        EXPECT_NE(text.find(member), std::string::npos) << member << "\n" << text;
        EXPECT_EQ(parseLessonFile(text), one) << member;
    }
    for (const auto& [member, words] :
         {std::pair{R"("qk_norm": "per_token")", "qk_norm"},
          std::pair{R"("score_scale": -1)", "score_scale"},
          std::pair{R"("attn_logit_softcapping": 1e9)", "attn_logit_softcapping"},
          std::pair{R"("rotary_dim": -2)", "rotary_dim"},
          std::pair{R"("learned_sinks": "yes")", "learned_sinks"}}) {
        const std::string message = refusal(std::string(R"({"format": "attnviz-lesson",
            "version": 3, "playground": {)") +
                                            member + "}}");
        EXPECT_NE(message.find(words), std::string::npos) << member << ": " << message;
    }
}

TEST(LessonFile, AVisionTransformersPictureNeedsVersionTwoAndSurvivesARoundTrip)
{
    LessonFile saved = modelLesson();
    EXPECT_EQ(lessonFileText(saved).find("\"image\""), std::string::npos);
    saved.model.folder = "shapes";
    saved.model.image = "pictures/ring.png";
    const std::string text = lessonFileText(saved);
    EXPECT_NE(text.find("\"version\": 2,"), std::string::npos) << text;
    EXPECT_NE(text.find("\"image\": \"pictures/ring.png\""), std::string::npos) << text;
    EXPECT_EQ(parseLessonFile(text), saved);
    EXPECT_NE(refusal(R"({"format": "attnviz-lesson", "version": 2,
                          "model": {"folder": "shapes", "image": 7}})")
                  .find("image"),
              std::string::npos);
}

TEST(LessonFile, TextIsReadableJsonWithItsFormatAndVersionFirst)
{
    const std::string text = lessonFileText(modelLesson());
    EXPECT_EQ(text.rfind("{\n  \"format\": \"attnviz-lesson\",\n  \"version\": 1,", 0), 0u) << text;
    EXPECT_NE(text.find("\"step\": \"softmax\""), std::string::npos);
    EXPECT_NE(text.find("\"block\": \"cross\""), std::string::npos);
    EXPECT_EQ(text.back(), '\n');
}

TEST(LessonFile, OmittedMembersTakeDefaultsAndUnknownOnesAreIgnored)
{
    const LessonFile l = parseLessonFile(
        R"({"format": "attnviz-lesson", "version": 1, "playground": {}, "added_later": [1]})");
    EXPECT_EQ(l, LessonFile{});
}

TEST(LessonFile, NewerVersionIsRefusedWithAReason)
{
    const std::string message =
        refusal(R"({"format": "attnviz-lesson", "version": 4, "playground": {}})");
    EXPECT_NE(message.find("newer AttnViz"), std::string::npos) << message;
    EXPECT_NE(message.find("version 4"), std::string::npos) << message;
}

TEST(LessonFile, DamageIsNamedInOneSentence)
{
    const auto lesson = [](const std::string& body) {
        return R"({"format": "attnviz-lesson", "version": 1, )" + body + "}";
    };
    struct Case {
        std::string text;
        std::string named;
    } cases[] = {
        {"", "not valid JSON"},
        {R"({"format": "attnviz-lesson", "version": 1, "playground": {})", "not valid JSON"},
        {"[1, 2]", "not an AttnViz lesson"},
        {R"({"version": 1, "playground": {}})", "“format”"},
        {R"({"format": "attnviz-lesson", "playground": {}})", "“version”"},
        {R"({"format": "attnviz-lesson", "version": "1", "playground": {}})", "“version”"},
        {R"({"format": "attnviz-lesson", "version": 0, "playground": {}})", "“version”"},
        {lesson(R"("language": "en")"), "either a “model” or a “playground”"},
        {lesson(R"("playground": {}, "model": {"folder": "reverse"})"), "exactly one"},
        {lesson(R"("model": {"text": "x"})"), "“model.folder”"},
        {lesson(R"("model": {"folder": 7})"), "“model.folder”"},
        {lesson(R"("model": {"folder": "reverse", "generate": -1})"), "“model.generate”"},
        {lesson(R"("model": {"folder": "r", "switched_off": [{"block": "ffn"}]})"),
         "“model.switched_off.block”"},
        {lesson(R"("model": {"folder": "r", "switched_off": [3]})"), "“model.switched_off”"},
        {lesson(R"("playground": {"heads": 1e400})"), "number out of range"},
        {lesson(R"("playground": {"heads": 2.5})"), "“playground.heads”"},
        {lesson(R"("playground": {"d_model": -16})"), "“playground.d_model”"},
        {lesson(R"("playground": {"mask": "diagonal"})"), "“playground.mask”"},
        {lesson(R"("playground": {"tokens": "bytes"})"), "“playground.tokens”"},
        {lesson(R"("playground": {"blocked_cells": [[1]]})"), "“playground.blocked_cells”"},
        {lesson(R"("playground": {"blocked_cells": [[-1, 2]]})"), "“playground.blocked_cells”"},
        {lesson(R"("playground": {"query_sentences": "one"})"), "“playground.query_sentences”"},
        {lesson(R"("playground": {"query_sentences": [1]})"), "“playground.query_sentences”"},
        {lesson(R"("playground": {"seed": 2147483648})"), "“playground.seed”"},
        {lesson(R"("playground": {}, "view": {"step": "attention"})"), "“view.step”"},
        {lesson(R"("playground": {}, "view": {"head": -2})"), "“view.head”"},
        {lesson(R"("playground": {}, "view": {"block": "enc_ffn"})"), "“view.block”"},
        {lesson(R"("playground": {}, "view": {"colour_range": "global"})"), "“view.colour_range”"},
        {lesson(R"("playground": {}, "view": [])"), "“view”"},
    };
    for (const Case& c : cases) {
        const std::string message = refusal(c.text);
        EXPECT_NE(message.find(c.named), std::string::npos) << c.text << "\n→ " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_EQ(message.back(), '.') << message;
    }
}

std::string modelLessonWith(const std::string& members)
{
    return R"({"format": "attnviz-lesson", "version": 1, "model": {"folder": "reverse", )" +
        members + "}}";
}

std::string playgroundLessonWith(const std::string& members)
{
    return R"({"format": "attnviz-lesson", "version": 2, "playground": {)" + members + "}}";
}

std::string repeated(const std::string& piece, int times)
{
    std::string out;
    for (int i = 0; i < times; ++i)
        out += piece;
    return out;
}

// A field given more than it holds cuts it down without a word (a QLineEdit keeps 32767 units, a
// QSpinBox its maximum), so a lesson holding more is refused in one sentence naming the member
// and the limit; a value at the limit opens as it is.
TEST(LessonFile, AValueItsFieldCannotHoldIsRefusedNotCut)
{
    struct Case {
        std::string text;
        std::string said;
    } refused[] = {
        {modelLessonWith(R"("text": ")" + std::string(32768, 'a') + "\""),
         "The lesson's “model.text” has 32768 characters; its field holds at most 32767."},
        {modelLessonWith(R"("text": ")" + std::string(4'000'000, 'a') + "\""),
         "“model.text” has 4000000 characters"},
        // A character outside the Basic Multilingual Plane is two units of the field.
        {modelLessonWith(R"("text": ")" + repeated("😀", 16384) + "\""),
         "“model.text” has 32768 characters"},
        {modelLessonWith(R"("target": ")" + std::string(40000, 'b') + "\""),
         "“model.target” has 40000 characters; its field holds at most 32767."},
        {modelLessonWith(R"("generate": 4096)"),
         "The lesson's “model.generate” must be a whole number from 0 to 256, not 4096."},
        {playgroundLessonWith(R"("valid_lengths": ")" + std::string(401, '1') + "\""),
         "“playground.valid_lengths” has 401 characters; its field holds at most 400."},
        {playgroundLessonWith(R"("heads": 129)"),
         "“playground.heads” must be a whole number from 0 to 128"},
        {playgroundLessonWith(R"("kv_heads": 129)"),
         "“playground.kv_heads” must be a whole number from 0 to 128"},
        {playgroundLessonWith(R"("d_model": 4097)"),
         "“playground.d_model” must be a whole number from 0 to 4096"},
        {playgroundLessonWith(R"("d_out": 4097)"),
         "“playground.d_out” must be a whole number from 0 to 4096"},
        {playgroundLessonWith(R"("sliding_window": 257)"),
         "“playground.sliding_window” must be a whole number from 0 to 256"},
        {playgroundLessonWith(R"("seed": 4000000000)"),
         "“playground.seed” must be a whole number from 0 to 2147483647"},
        {playgroundLessonWith(R"("rope_theta": 1.5)"),
         "“playground.rope_theta” must be a number from 2 to 1e+09"},
        {playgroundLessonWith(R"("rope_theta": 10000.5)"),
         "“playground.rope_theta” must be a whole number from 2 to 1e+09"},
    };
    for (const Case& c : refused) {
        const std::string message = refusal(c.text);
        EXPECT_NE(message.find(c.said), std::string::npos) << c.said << "\n→ " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_EQ(message.back(), '.') << message;
    }

    const LessonFile atTheLimit = parseLessonFile(
        modelLessonWith(R"("text": ")" + repeated("注", 32767) + R"(", "target": ")" +
                        std::string(32767, 'b') + R"(", "generate": 256)"));
    EXPECT_EQ(atTheLimit.model.text, repeated("注", 32767));
    EXPECT_EQ(atTheLimit.model.target, std::string(32767, 'b'));
    EXPECT_EQ(atTheLimit.model.generate, 256);
    const LessonFile widest = parseLessonFile(playgroundLessonWith(
        R"("heads": 128, "d_model": 4096, "seed": 2147483647, "rope_theta": 1000000000.0, )"
        R"("valid_lengths": ")" +
        std::string(400, '1') + "\""));
    EXPECT_EQ(widest.playground.heads, 128);
    EXPECT_EQ(widest.playground.modelWidth, 4096);
    EXPECT_EQ(widest.playground.seed, 2147483647u);
    EXPECT_EQ(widest.playground.ropeTheta, 1e9);
    EXPECT_EQ(widest.playground.validLengths.size(), 400u);
}

// A sentence the playground would not take is refused before it reaches a text field: one word of
// 3 million letters kept the app's window from appearing for minutes.
TEST(LessonFile, SentencesBeyondThePlaygroundsLimitsAreRefused)
{
    const std::string word(3'000'000, 'a');
    EXPECT_EQ(refusal(playgroundLessonWith(R"("query_sentences": [")" + word + R"("])")),
              "The lesson's “playground.query_sentences” is more than the playground takes: "
              "batch item 0 has 3000000 characters, more than the 4096 a sentence may have.");
    EXPECT_EQ(refusal(playgroundLessonWith(R"("query_sentences": ["a b"], )"
                                           R"("key_value_sentences": ["a )" +
                                           std::string(101, 'w') + R"("])")),
              "The lesson's “playground.key_value_sentences” is more than the playground takes: "
              "batch item 0 has a word of 101 characters, more than the 100 a word may have.");
    std::string many;
    for (int i = 0; i <= kMaxSentences; ++i)
        many += std::string(i ? ", " : "") + "\"s\"";
    EXPECT_THAT(refusal(playgroundLessonWith(R"("query_sentences": [)" + many + "]")),
                ::testing::HasSubstr("there are 101 sentences, more than the 100"));
    // The word limit is for word tokens; character tokens read a long unspaced sentence.
    const LessonFile characters = parseLessonFile(playgroundLessonWith(
        R"("tokens": "characters", "query_sentences": [")" + std::string(200, 'c') + R"("])"));
    EXPECT_EQ(characters.playground.querySentences[0].size(), 200u);
}

// A head listed again is dropped, as --ablate drops it (it is the same head, and the panel's click
// removes one entry); a list longer than any model's heads is refused before any work: 80,000
// copies of one head took 18 s to open.
TEST(LessonFile, SwitchedOffHeadsListedAgainAreDroppedAndTheListIsBounded)
{
    const std::string head = R"({"layer": 1, "block": "cross", "head": 2})";
    std::string thrice =
        head + ", " + head + ", " + R"({"layer": 0, "block": "self", "head": 0})" + ", " + head;
    const LessonFile model =
        parseLessonFile(modelLessonWith(R"("switched_off": [)" + thrice + "]"));
    const std::vector<engine::Ablation::Head> once = {{1, engine::Block::Cross, 2},
                                                      {0, engine::Block::Self, 0}};
    EXPECT_EQ(model.model.ablation.heads, once);

    std::string copies = head;
    for (int i = 1; i < 80000; ++i)
        copies += ", " + head;
    EXPECT_THAT(refusal(modelLessonWith(R"("switched_off": [)" + copies + "]")),
                ::testing::HasSubstr("The lesson's “model.switched_off” must be a list of at "
                                     "most 8192 items, not "));

    std::string numbers = "1";
    for (int i = 1; i < 200; ++i)
        numbers += ", 1";
    EXPECT_EQ(parseLessonFile(playgroundLessonWith(R"("switched_off": [)" + numbers + "]"))
                  .playground.ablatedHeads,
              std::set<int>{1});
    for (int i = 200; i < 80000; ++i)
        numbers += ", 1";
    EXPECT_THAT(refusal(playgroundLessonWith(R"("switched_off": [)" + numbers + "]")),
                ::testing::HasSubstr("“playground.switched_off” must be a list of at most 8192"));
    EXPECT_THAT(refusal(playgroundLessonWith(R"("switched_off": [128])")),
                ::testing::HasSubstr("“playground.switched_off” must be a list of head numbers "
                                     "from 0 to 127, not 128."));
}

// The example lessons (also the fuzzer's seeds) read, and are written back byte for byte: the
// format's text is what lessonFileText writes.
TEST(LessonFile, ExampleLessonsReadAndAreWrittenBackUnchanged)
{
    int examples = 0;
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "lessons")) {
        const std::string text = io::readFile(entry.path().string());
        EXPECT_EQ(lessonFileText(parseLessonFile(text)), text) << entry.path();
        ++examples;
    }
    EXPECT_GE(examples, 2);
}

TEST(LessonFile, ControlCharactersInARefusedValueAreEscaped)
{
    const std::string message =
        refusal("{\"format\": \"attnviz-lesson\", \"version\": 1, \"playground\": {}, \"view\": "
                "{\"step\": \"a\\u001b[31mred\\nline\\u202e\"}}");
    // Escaped once: the refused value was escaped twice (\\x1b), its backslashes doubled.
    EXPECT_THAT(message, ::testing::HasSubstr(R"(, not "a\x1b[31mred\nline\u202e".)")) << message;
}

} // namespace
} // namespace attnviz::lesson
