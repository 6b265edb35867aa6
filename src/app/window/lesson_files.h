#pragma once

#include "lesson/lesson_file.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace attnviz::app {

/// A lesson file read from disk, or the one sentence that says why it cannot be opened (the
/// path escaped on one line).
struct LessonRead {
    std::optional<lesson::LessonFile> lesson;
    QString error;
};

/// Reads an .attnviz file: a directory, a FIFO, a file larger than a lesson can be, damaged or
/// newer JSON are refused. A relative model folder in the file is taken relative to the file's own
/// folder, so a lesson travels with the models beside it.
LessonRead readLessonFile(const QString& path);

/// Writes the lesson through a temporary file renamed over `path`, so a failed save leaves the
/// file as it was. Returns the sentence saying why it failed, or "" on success.
QString writeLessonFile(const QString& path, const lesson::LessonFile& lesson);

/// File ▸ Open recent lesson: the last lessons opened or saved, newest first, at most eight.
QStringList recentLessons();
void rememberLesson(const QString& path);
void forgetRecentLessons();

/// The lesson shown when the window last closed (or switched language), if one was kept and
/// still reads; the window reopens on it.
std::optional<lesson::LessonFile> sessionLesson();
void saveSessionLesson(const lesson::LessonFile& lesson);

} // namespace attnviz::app
