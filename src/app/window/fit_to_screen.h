#pragma once

class QWidget;

namespace attnviz::app {

/// Bounds a top-level window to its screen (a 1280 × 720 projector), neither larger nor partly
/// off it, so that nothing starts cut off: now, and again once shown, since the first layout may
/// ask for more than the content later needs.
void fitToScreen(QWidget& window);

} // namespace attnviz::app
