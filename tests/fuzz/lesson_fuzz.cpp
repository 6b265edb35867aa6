// lesson::parseLessonFile, as File ▸ Open lesson and `attnviz lesson.attnviz` read a lesson. What
// it accepts must survive writing and reading again unchanged: the window saves the lesson it
// opened, and a teacher's file must not drift from one save to the next. Then its texts go where
// opening the lesson sends them: the playground checks its sentences and estimates their memory
// (and computes them when that is small), and the model's text and target are tokenised by the
// real GPT-2 and BERT tokenizers, as a model folder's would.
#include "fuzz_support.h"

#include "lesson/lesson_file.h"
#include "lesson/playground.h"

namespace attnviz::fuzz {
namespace {

constexpr std::uint64_t kComputedPlaygroundBytes = 16u << 20;

void exerciseTexts(const lesson::LessonFile& lesson)
{
    if (lesson::checkSettings(lesson.playground).empty() &&
        lesson::playgroundBytes(lesson.playground) <= kComputedPlaygroundBytes)
        require(lesson::computePlayground(lesson.playground)->trace != nullptr,
                "a playground the checks accept computed no trace");
    for (const std::optional<std::string>& text :
         {std::optional<std::string>(lesson.model.text), lesson.model.target}) {
        if (!text)
            continue;
        (void)realGpt2().encode(*text);
        (void)realBert().encode(*text);
    }
}

} // namespace

void fuzzLesson(std::string_view input)
{
    acceptingDocumentedRejections([&] {
        const lesson::LessonFile read = lesson::parseLessonFile(input);
        const std::string written = lesson::lessonFileText(read);
        const lesson::LessonFile again = lesson::parseLessonFile(written);
        // Text members with invalid UTF-8 are written with U+FFFD, so compare the second round.
        require(lesson::lessonFileText(again) == written,
                "a lesson does not read back the same after it is written");
        exerciseTexts(read);
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzLesson)
