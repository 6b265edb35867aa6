#include "io/checkpoint/checkpoint_layout.h"

namespace attnviz::io {

const std::vector<const CheckpointLayout*>& checkpointLayouts()
{
    static const std::vector<const CheckpointLayout*> layouts{&attnvizLayout()};
    return layouts;
}

} // namespace attnviz::io
