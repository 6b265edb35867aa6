#include "app/window/lesson_files.h"

#include "app/window/settings_store.h"
#include "app/window/shown_names.h"
#include "engine/input_error.h"
#include "io/atomic_file.h"
#include "io/file_error.h"
#include "io/input_file.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace attnviz::app {

namespace {

constexpr int kRecentLessons = 8;

bool isBundledName(const std::string& model)
{
    return model.find('/') == std::string::npos && model.find('\\') == std::string::npos;
}

} // namespace

LessonRead readLessonFile(const QString& path)
{
    LessonRead read;
    try {
        read.lesson = lesson::parseLessonFile(
            io::readFile(QFile::encodeName(path).toStdString(), lesson::kMaxLessonFileBytes));
    } catch (const io::FileError& e) {
        read.error = QString::fromStdString(e.what());
        return read;
    } catch (const engine::InputError& e) {
        read.error = QCoreApplication::translate("LessonFiles", "“%1” cannot be opened: %2")
                         .arg(shownPath(path), QString::fromStdString(e.what()));
        return read;
    }
    std::string& model = read.lesson->model.folder;
    if (!model.empty() && !isBundledName(model) &&
        QDir::isRelativePath(QString::fromStdString(model)))
        model =
            QDir::cleanPath(QFileInfo(path).absoluteDir().filePath(QString::fromStdString(model)))
                .toStdString();
    // A picture travels beside its lesson as a model folder does.
    std::string& picture = read.lesson->model.image;
    if (!picture.empty() && QDir::isRelativePath(QString::fromStdString(picture)))
        picture =
            QDir::cleanPath(QFileInfo(path).absoluteDir().filePath(QString::fromStdString(picture)))
                .toStdString();
    return read;
}

QString writeLessonFile(const QString& path, const lesson::LessonFile& lesson)
{
    try {
        io::AtomicFile file(QFile::encodeName(path).toStdString());
        const std::string text = lesson::lessonFileText(lesson);
        file.write({text.data(), text.size()});
        file.commit();
    } catch (const io::FileError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QStringList recentLessons()
{
    const QSettings store;
    return loadRecentLessons(store, kRecentLessons);
}

void rememberLesson(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList paths = recentLessons();
    paths.removeAll(absolute);
    paths.prepend(absolute);
    QSettings store;
    saveRecentLessons(store, paths.mid(0, kRecentLessons));
}

void forgetRecentLessons()
{
    QSettings store;
    removeRecentLessons(store);
}

std::optional<lesson::LessonFile> sessionLesson()
{
    const QSettings store;
    const QString text = loadSessionLessonText(store);
    if (text.isEmpty() || text.size() > static_cast<qsizetype>(lesson::kMaxLessonFileBytes))
        return std::nullopt;
    try {
        return lesson::parseLessonFile(text.toStdString());
    } catch (const engine::InputError&) {
        return std::nullopt; // damaged by hand: the older keys still reopen model and step
    }
}

void saveSessionLesson(const lesson::LessonFile& lesson)
{
    QSettings store;
    saveSessionLessonText(store, QString::fromStdString(lesson::lessonFileText(lesson)));
}

} // namespace attnviz::app
