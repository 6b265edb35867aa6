#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/model_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/walkthrough.h"

#include <memory>

namespace attnviz::app {

/// What the window shows right now, as the Export menu and saved lessons need it: the
/// walkthrough on screen, the model run it belongs to (null in the playground), the block, the
/// step, the view of it, the batch item and the focused head. MainWindow assembles it, so no one
/// else reaches into its panels.
struct ViewState {
    std::shared_ptr<const lesson::Walkthrough> walkthrough;
    std::shared_ptr<const lesson::ModelRun> run;
    lesson::BlockChoice choice;
    lesson::LessonStepIndex step = 0;
    int alternative = 0;
    int batch = 0;
    int focusedHead = -1; ///< −1: all heads shown
    bool overview = false; ///< the whole-model overview (layers × heads) instead of the steps
};

} // namespace attnviz::app
