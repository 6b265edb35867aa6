#pragma once

#include "app/model_runner.h"
#include "app/playground.h"

class QSettings;

namespace attnviz::app {

/// Keeps the last configuration between runs. Unknown or damaged values fall back to defaults.
void savePlaygroundSettings(QSettings& store, const PlaygroundSettings& settings);
PlaygroundSettings loadPlaygroundSettings(const QSettings& store);

/// The model and text last shown ("" folder = the playground). On first start, when nothing was
/// saved, the encoder-decoder demo with its example, so the first screen shows real attention.
void saveModelRequest(QSettings& store, const ModelRequest& request);
ModelRequest loadModelRequest(const QSettings& store);

} // namespace attnviz::app
