#pragma once

#include "app/model_runner.h"
#include "app/preferences_dialog.h"
#include "lesson/lesson_steps.h"
#include "lesson/playground.h"

class QSettings;

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
void saveModelRequest(QSettings& store, const ModelRequest& request);
ModelRequest loadModelRequest(const QSettings& store);
/// What a first start opens: the encoder-decoder demo, its example text from its config.json.
ModelRequest defaultModelRequest();

/// Preferences (the memory limit, stored as bytes); a damaged value means no limit of one's own.
void savePreferences(QSettings& store, const Preferences& preferences);
Preferences loadPreferences(const QSettings& store);

/// Experiments ▸ Predict, then reveal: on or off (off unless saved on).
void savePredictMode(QSettings& store, bool on);
bool loadPredictMode(const QSettings& store);

} // namespace attnviz::app
