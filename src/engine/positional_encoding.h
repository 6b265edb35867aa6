#pragma once

#include "engine/tensor.h"

namespace attnviz::engine {

/// The sinusoidal positional encoding of "Attention Is All You Need" (3.5), one row a position:
/// PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
/// Neighbouring positions get similar rows, and a fixed offset is a linear map of the encoding.
RowMatrix sinusoidalPositionalEncoding(Eigen::Index positions, Eigen::Index width);

} // namespace attnviz::engine
