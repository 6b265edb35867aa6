#include "io/checkpoint/checkpoint_files.h"

#include "io/checkpoint/model_error.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

SafetensorsFile openWeights(const fs::path& path)
{
    const std::string name = path.filename().string();
    try {
        return SafetensorsFile::read(path.string());
    } catch (const FormatError& e) {
        throw ModelError(printable(name) + " is damaged: " + e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
}

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1f;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) { // zero or subnormal: mantissa · 2⁻²⁴, exact in float
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::string indexOf(std::size_t flat, const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t a = shape.size(); a-- > 0;) {
        const auto size = static_cast<std::size_t>(std::max<std::int64_t>(shape[a], 1));
        index[a] = static_cast<std::int64_t>(flat % size);
        flat /= size;
    }
    std::string s = "[";
    for (std::size_t a = 0; a < index.size(); ++a)
        s += (a ? ", " : "") + std::to_string(index[a]);
    return s + "]";
}

} // namespace

CheckpointFiles::CheckpointFiles(const fs::path& folder)
{
    std::error_code error;
    const fs::path single = folder / "model.safetensors";
    const fs::path index = folder / "model.safetensors.index.json";
    // A model.safetensors that cannot be looked at (a symbolic link loop) is there but
    // unreadable: openWeights says why, rather than calling it missing.
    if (fs::exists(single, error) || error) {
        m_label = "model.safetensors";
        m_files.push_back(openWeights(single));
    } else if (fs::exists(index, error)) {
        m_label = "model.safetensors.index.json";
        JsonValue json;
        try {
            json = parseJson(readFile(index.string(), 64u << 20));
        } catch (const JsonError& e) {
            throw ModelError(std::string("model.safetensors.index.json is not valid JSON: ") +
                             e.what());
        } catch (const FileError& e) {
            throw ModelError(e.what());
        }
        const JsonValue* map = json.find("weight_map");
        if (!map || !map->isObject())
            throw ModelError("model.safetensors.index.json has no \"weight_map\" object naming "
                             "each tensor's shard.");
        std::set<std::string> shards;
        for (const auto& [name, file] : map->asObject()) {
            if (!file.isString() || file.asString().find('/') != std::string::npos ||
                file.asString().empty() || file.asString().starts_with("."))
                throw ModelError("model.safetensors.index.json maps '" + printable(name) + "' to " +
                                 file.describe() +
                                 "; expected the file name of a shard in the same folder.");
            shards.insert(file.asString());
        }
        for (const std::string& shard : shards)
            m_files.push_back(openWeights(folder / shard));
    } else if (fs::exists(folder / "pytorch_model.bin", error) ||
               fs::exists(folder / "pytorch_model.bin.index.json", error)) {
        throw ModelError("'" + printable(folder.string()) +
                         "' holds only pytorch_model.bin, a pickle checkpoint, which AttnViz never "
                         "opens because "
                         "unpickling can run code; save the model with safe_serialization=True to "
                         "get model.safetensors.");
    } else {
        throw ModelError("'" + printable(folder.string()) +
                         "' has no model.safetensors with the weights.");
    }
    for (const SafetensorsFile& file : m_files)
        for (const TensorEntry& t : file.tensors())
            if (!m_index.emplace(t.name, &t).second)
                throw ModelError("The checkpoint holds tensor '" + printable(t.name) +
                                 "' in two shards.");
}

const TensorEntry* CheckpointFiles::find(const std::string& name) const
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : it->second;
}

std::vector<const TensorEntry*> CheckpointFiles::tensors() const
{
    std::vector<const TensorEntry*> all;
    for (const SafetensorsFile& file : m_files)
        for (const TensorEntry& t : file.tensors())
            all.push_back(&t);
    return all;
}

void CheckpointFiles::release(const TensorEntry& tensor) const
{
    for (const SafetensorsFile& file : m_files)
        file.release(tensor);
}

std::vector<float> CheckpointFiles::readFloats(const TensorEntry& tensor) const
{
    for (const SafetensorsFile& file : m_files)
        if (file.holds(tensor)) {
            std::vector<char> bytes;
            try {
                bytes = file.readBytes(tensor);
            } catch (const FileError& e) {
                throw ModelError(e.what());
            }
            TensorEntry copy = tensor;
            copy.bytes = bytes;
            return finiteFloats(copy, m_label);
        }
    throw ModelError(m_label + " does not hold tensor '" + printable(tensor.name) + "'.");
}

std::vector<float> finiteFloats(const TensorEntry& t, const std::string& file)
{
    const auto n = static_cast<std::size_t>(t.elementCount());
    std::vector<float> values(n);
    switch (t.dtype) {
    case DType::F32:
        // Tensor data in a safetensors file need not be aligned for float; copy through memcpy.
        if (n)
            std::memcpy(values.data(), t.bytes.data(), n * sizeof(float));
        break;
    case DType::F16:
    case DType::BF16:
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, t.bytes.data() + 2 * i, 2);
            values[i] = t.dtype == DType::F16
                ? halfToFloat(bits)
                : std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
        }
        break;
    default:
        throw ModelError(file + ": tensor '" + printable(t.name) + "' is " +
                         std::string(dtypeName(t.dtype)) +
                         "; AttnViz reads F32, F16 and BF16 weights.");
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(values[i]))
            throw ModelError(file + ": tensor '" + printable(t.name) + "' holds " +
                             (std::isnan(values[i]) ? "NaN"
                                  : values[i] > 0   ? "+Inf"
                                                    : "-Inf") +
                             " at index " + indexOf(i, t.shape) +
                             "; every weight must be a finite number.");
    return values;
}

} // namespace attnviz::io
