#include "io/checkpoint/checkpoint_layout.h"

namespace attnviz::io {

const std::vector<const CheckpointLayout*>& checkpointLayouts()
{
    static const std::vector<const CheckpointLayout*> layouts{
        &attnvizLayout(), &gpt2Layout(), &bertLayout(), &llamaFamilyLayout(), &vitLayout()};
    return layouts;
}

} // namespace attnviz::io
