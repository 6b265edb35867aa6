#include "engine/non_finite.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace attnviz::engine {
namespace {

std::string sentence(const std::string& step, const std::string& value, const std::string& place)
{
    const std::string where = place.empty() ? "The " + step : place + ": the " + step;
    std::string text = where + " step overflowed 32-bit floats (a value is " + value +
        "), so every step after it would be NaN; the weights or the input are too large to "
        "compute with.";
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

} // namespace

NonFiniteError::NonFiniteError(std::string step, std::string value, std::string place)
    : InputError(sentence(step, value, place))
    , m_step(std::move(step))
    , m_value(std::move(value))
    , m_place(std::move(place))
{
}

NonFiniteError NonFiniteError::within(const std::string& place) const
{
    return NonFiniteError(m_step, m_value, m_place.empty() ? place : place + ", " + m_place);
}

std::optional<std::string> firstNonFinite(const float* data, std::size_t count)
{
    // Blocks of 64 are tested first without a branch (vectorised): a float is not finite when its
    // exponent bits are all ones. Trace steps are checked whole, so this is on every pass's path.
    constexpr std::uint32_t kExponent = 0x7f800000u;
    std::size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        std::uint32_t bits[64];
        std::memcpy(bits, data + i, sizeof bits);
        std::uint32_t notFinite = 0;
        for (const std::uint32_t b : bits)
            notFinite |= static_cast<std::uint32_t>((b & kExponent) == kExponent);
        if (notFinite)
            break;
    }
    for (; i < count; ++i)
        if (!std::isfinite(data[i]))
            return std::isnan(data[i]) ? "NaN" : data[i] > 0 ? "+Inf" : "-Inf";
    return std::nullopt;
}

void requireFinite(const Tensor& t, std::string_view step)
{
    if (const auto value = firstNonFinite(t.data(), static_cast<std::size_t>(t.size())))
        throw NonFiniteError(std::string(step), *value);
}

} // namespace attnviz::engine
