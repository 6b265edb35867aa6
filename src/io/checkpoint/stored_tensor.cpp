#include "io/checkpoint/stored_tensor.h"

#include "io/checkpoint/model_error.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

namespace attnviz::io {
namespace {

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

float valueAt(const TensorEntry& t, std::size_t i)
{
    if (t.dtype == DType::F32) {
        float v = 0;
        std::memcpy(&v, t.bytes.data() + 4 * i, 4);
        return v;
    }
    std::uint16_t bits = 0;
    std::memcpy(&bits, t.bytes.data() + 2 * i, 2);
    return t.dtype == DType::F16 ? halfToFloat(bits)
                                 : std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// The first value whose exponent bits are all set (an infinity or a NaN), read from the stored
// bits: a scan of the bytes, with no conversion. Blocks are copied out (the data need not be
// aligned) and scanned without an early exit, which the compiler turns into vector
// instructions; only a block with a bad value is searched for its position.
template <typename Bits>
std::optional<std::size_t> firstAllOnes(const char* bytes, std::size_t n, Bits exponent)
{
    constexpr std::size_t kBlock = 4096;
    Bits block[kBlock];
    for (std::size_t start = 0; start < n; start += kBlock) {
        const std::size_t count = std::min(n - start, kBlock);
        std::memcpy(block, bytes + sizeof(Bits) * start, sizeof(Bits) * count);
        Bits any = 0;
        for (std::size_t i = 0; i < count; ++i)
            any |= static_cast<Bits>((block[i] & exponent) == exponent);
        if (any)
            for (std::size_t i = 0; i < count; ++i)
                if ((block[i] & exponent) == exponent)
                    return start + i;
    }
    return std::nullopt;
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

StoredTensor::StoredTensor(const TensorEntry& entry, const std::string& file)
    : m_entry(entry)
    , m_size(static_cast<std::size_t>(entry.elementCount()))
{
    std::optional<std::size_t> bad;
    const char* bytes = entry.bytes.data();
    switch (entry.dtype) {
    case DType::F32:
        bad = firstAllOnes<std::uint32_t>(bytes, m_size, 0x7f800000u);
        break;
    case DType::F16:
        bad = firstAllOnes<std::uint16_t>(bytes, m_size, 0x7c00u);
        break;
    case DType::BF16:
        bad = firstAllOnes<std::uint16_t>(bytes, m_size, 0x7f80u);
        break;
    default:
        throw ModelError(file + ": tensor '" + printable(entry.name) + "' is " +
                         std::string(dtypeName(entry.dtype)) +
                         "; AttnViz reads F32, F16 and BF16 weights.");
    }
    if (bad) {
        const float v = valueAt(entry, *bad);
        throw ModelError(file + ": tensor '" + printable(entry.name) + "' holds " +
                         (std::isnan(v) ? "NaN"
                              : v > 0   ? "+Inf"
                                        : "-Inf") +
                         " at index " + indexOf(*bad, entry.shape) +
                         "; every weight must be a finite number.");
    }
}

void StoredTensor::convertInto(std::span<float> out, std::size_t first) const
{
    first = std::min(first, m_size);
    const std::size_t n = std::min(out.size(), m_size - first);
    const char* bytes = m_entry.bytes.data() + first * (m_entry.dtype == DType::F32 ? 4 : 2);
    switch (m_entry.dtype) {
    case DType::F32:
        // Tensor data in a safetensors file need not be aligned for float: copied as bytes.
        if (n)
            std::memcpy(out.data(), bytes, n * sizeof(float));
        break;
    case DType::BF16:
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, bytes + 2 * i, 2);
            out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
        }
        break;
    default: // F16; the constructor let no other dtype through
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, bytes + 2 * i, 2);
            out[i] = halfToFloat(bits);
        }
        break;
    }
}

std::vector<float> StoredTensor::floats() const
{
    std::vector<float> values(m_size);
    convertInto(values);
    return values;
}

} // namespace attnviz::io
