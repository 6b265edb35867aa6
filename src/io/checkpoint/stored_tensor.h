#pragma once

#include "io/safetensors.h"

#include <span>
#include <string>
#include <vector>

namespace attnviz::io {

/// A checkpoint tensor's stored values as a weight slot takes them: F32 as stored, F16 and BF16
/// widened, converted straight into whatever keeps them. Converting into the slot's own matrix
/// rather than through a vector in between saves, for a 1B-parameter model, an allocation and a
/// copy of 5 GB on opening and on every streamed pass.
class StoredTensor {
public:
    /// Checks, without converting anything, that `entry` is F32, F16 or BF16 and that every value
    /// is finite (a non-finite weight would silently turn every later activation into NaN).
    /// Throws ModelError naming `file`, the tensor and the first bad position.
    StoredTensor(const TensorEntry& entry, const std::string& file);

    std::size_t size() const { return m_size; }
    /// Writes values [first, first + out.size()), as float, to `out` (all size() by default).
    void convertInto(std::span<float> out, std::size_t first = 0) const;
    std::vector<float> floats() const;

private:
    const TensorEntry& m_entry;
    std::size_t m_size = 0;
};

} // namespace attnviz::io
