#pragma once

#include "app/dialogs/preferences_dialog.h"
#include "app/window/model_runner.h"
#include "lesson/lesson_steps.h"
#include "lesson/playground.h"

#include <QStringList>

class QByteArray;
class QSettings;
class QString;

namespace attnviz::app {

/// Keeps the last configuration between runs. Unknown or damaged values fall back to defaults.
void savePlaygroundSettings(QSettings& store, const lesson::PlaygroundSettings& settings);
lesson::PlaygroundSettings loadPlaygroundSettings(const QSettings& store);

/// The lesson step shown, stored by its key ("softmax"), so adding a step does not shift what
/// an older setting means.
void saveStep(QSettings& store, lesson::LessonStepIndex step);
lesson::LessonStepIndex loadStep(const QSettings& store);

/// The model and text last shown ("" folder = the playground). On first start, when nothing was
/// saved, the encoder-decoder demo with its example, so the first screen shows real attention.
void saveModelRequest(QSettings& store, const lesson::ModelSource& request);
lesson::ModelSource loadModelRequest(const QSettings& store);
/// What a first start opens: the encoder-decoder demo, its example text from its config.json.
lesson::ModelSource defaultModelRequest();

/// Preferences (the memory limit, stored as bytes); a damaged value means no limit of one's own.
void savePreferences(QSettings& store, const Preferences& preferences);
Preferences loadPreferences(const QSettings& store);

/// Experiments ▸ Predict, then reveal: on or off (off unless saved on).
void savePredictMode(QSettings& store, bool on);
bool loadPredictMode(const QSettings& store);

/// View ▸ Animations: on unless saved off.
void saveAnimations(QSettings& store, bool on);
bool loadAnimations(const QSettings& store);

/// The window's geometry (QWidget::saveGeometry), empty when none was saved.
void saveWindowGeometry(QSettings& store, const QByteArray& geometry);
QByteArray loadWindowGeometry(const QSettings& store);

/// Whether a first start already offered the guided tour.
void saveTourOffered(QSettings& store);
bool loadTourOffered(const QSettings& store);

/// The interface's language code (View ▸ Language); `fallback` when none was chosen.
void saveLanguage(QSettings& store, const QString& code);
QString loadLanguage(const QSettings& store, const QString& fallback);

/// File ▸ Recent lessons, newest first, at most `limit`.
void saveRecentLessons(QSettings& store, const QStringList& paths);
QStringList loadRecentLessons(const QSettings& store, int limit);
void removeRecentLessons(QSettings& store);

/// The lesson the window showed when it closed, as lesson-file text ("" when none).
void saveSessionLessonText(QSettings& store, const QString& text);
QString loadSessionLessonText(const QSettings& store);

} // namespace attnviz::app
