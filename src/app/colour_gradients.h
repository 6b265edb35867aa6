#pragma once

class QCPColorGradient;

namespace attnviz::app {

/// Viridis: perceptually uniform, readable in greyscale and with colour-vision deficiencies.
/// Blocked cells (NaN in the colour map) are neutral grey, a colour viridis never uses.
const QCPColorGradient& sequentialGradient();
/// Blue–white–red centred on zero (ColorBrewer RdBu), for signed values; blocked cells grey.
const QCPColorGradient& divergingGradient();

} // namespace attnviz::app
