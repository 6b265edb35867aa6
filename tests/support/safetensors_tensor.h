#pragma once

#include "engine/tensor.h"
#include "io/safetensors.h"

#include <cstring>
#include <stdexcept>

namespace attnviz::test {

/// An F32 tensor of a safetensors file as an engine tensor (axes named d0, d1, ...; comparisons
/// look at shapes and values only).
inline engine::Tensor tensorFrom(const io::SafetensorsFile& file, const std::string& name)
{
    const io::TensorEntry* entry = file.find(name);
    if (!entry || entry->dtype != io::DType::F32)
        throw std::runtime_error("no F32 tensor '" + name + "'");
    std::vector<engine::Axis> axes;
    for (std::size_t a = 0; a < entry->shape.size(); ++a)
        axes.push_back({"d" + std::to_string(a), entry->shape[a]});
    engine::Tensor t(std::move(axes));
    std::memcpy(t.data(), entry->bytes.data(), entry->bytes.size());
    return t;
}

} // namespace attnviz::test
