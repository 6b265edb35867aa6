// The saved-lesson format (.attnviz): a round trip keeps every field, and every kind of damage is
// refused with one sentence that names the member at fault.
#include "engine/input_error.h"
#include "lesson/lesson_file.h"

#include "io/input_file.h"

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
    l.playground.seed = 4000000000u;
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
        refusal(R"({"format": "attnviz-lesson", "version": 3, "playground": {}})");
    EXPECT_NE(message.find("newer AttnViz"), std::string::npos) << message;
    EXPECT_NE(message.find("version 3"), std::string::npos) << message;
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
        {lesson(R"("playground": {"seed": 4294967296})"), "“playground.seed”"},
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
                "{\"step\": \"a\\u001b[31mred\\nline\"}}");
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

} // namespace
} // namespace attnviz::lesson
