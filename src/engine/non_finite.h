#pragma once

#include "engine/input_error.h"
#include "engine/tensor.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz::engine {

/// Raised where a computation's values first stop being finite. Finite but huge weights or
/// inputs overflow 32-bit floats (3e19 · 3e19 is +Inf), and from there every later step is NaN:
/// a picture of NaN weights and rows summing to "0.000" would be silently wrong, so the run is
/// refused at the step that overflowed. Callers that know more (the layer and block) add it with
/// within().
class NonFiniteError : public InputError {
public:
    /// `step`: the step's name as the step table and the CLI spell it ("scores", "ffn_hidden");
    /// `value`: "+Inf", "-Inf" or "NaN", the first one found.
    NonFiniteError(std::string step, std::string value, std::string place = {});

    /// The same error, placed inside `place` ("layer 3's masked_self attention").
    NonFiniteError within(const std::string& place) const;

    const std::string& step() const { return m_step; }
    const std::string& place() const { return m_place; }

private:
    std::string m_step, m_value, m_place;
};

/// "+Inf", "-Inf" or "NaN" for the first value of `data[0, count)` that is not finite; nothing
/// when all are.
std::optional<std::string> firstNonFinite(const float* data, std::size_t count);

/// Throws NonFiniteError naming `step` when `t` holds a value that is not finite.
void requireFinite(const Tensor& t, std::string_view step);

} // namespace attnviz::engine
