#pragma once

#include "app/playground.h"

class QSettings;

namespace attnviz::app {

/// Keeps the last configuration between runs. Unknown or damaged values fall back to defaults.
void savePlaygroundSettings(QSettings& store, const PlaygroundSettings& settings);
PlaygroundSettings loadPlaygroundSettings(const QSettings& store);

} // namespace attnviz::app
