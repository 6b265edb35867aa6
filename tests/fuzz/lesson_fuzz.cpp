// lesson::parseLessonFile, as File ▸ Open lesson and `attnviz lesson.attnviz` read a lesson. What
// it accepts must survive writing and reading again unchanged: the window saves the lesson it
// opened, and a teacher's file must not drift from one save to the next.
#include "fuzz_support.h"

#include "lesson/lesson_file.h"

namespace attnviz::fuzz {

void fuzzLesson(std::string_view input)
{
    acceptingDocumentedRejections([&] {
        const lesson::LessonFile read = lesson::parseLessonFile(input);
        const std::string written = lesson::lessonFileText(read);
        const lesson::LessonFile again = lesson::parseLessonFile(written);
        // Text members with invalid UTF-8 are written with U+FFFD, so compare the second round.
        require(lesson::lessonFileText(again) == written,
                "a lesson does not read back the same after it is written");
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzLesson)
