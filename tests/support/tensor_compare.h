#pragma once

#include "engine/tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace attnviz::test {

/// The float32 tolerance every engine comparison states: |actual − expected| ≤ kAbsTolerance +
/// kRelTolerance·|expected|. Infinities (the −∞ of blocked scores) and NaN must match exactly.
inline constexpr double kAbsTolerance = 2e-5;
inline constexpr double kRelTolerance = 2e-4;

/// Compares two tensors element by element; reports the first mismatch with its multi-index.
inline ::testing::AssertionResult tensorsNear(const engine::Tensor& actual,
                                              const engine::Tensor& expected,
                                              double absTolerance = kAbsTolerance,
                                              double relTolerance = kRelTolerance)
{
    if (actual.shape() != expected.shape())
        return ::testing::AssertionFailure()
            << "shape " << actual.shapeString() << " vs expected " << expected.shapeString();
    const auto a = actual.values();
    const auto e = expected.values();
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool bothInfinite = std::isinf(a[i]) && std::isinf(e[i]) && (a[i] > 0) == (e[i] > 0);
        // NaN only where the reference has it (PyTorch's softmax of a fully blocked row)
        const bool bothNaN = std::isnan(a[i]) && std::isnan(e[i]);
        const bool close = std::abs(static_cast<double>(a[i]) - e[i]) <=
            absTolerance + relTolerance * std::abs(static_cast<double>(e[i]));
        if (!bothInfinite && !bothNaN && !close) {
            std::ostringstream index;
            std::size_t rest = i;
            std::string s;
            for (std::size_t ax = actual.rank(); ax-- > 0;) {
                s = std::to_string(rest % static_cast<std::size_t>(actual.dim(ax))) +
                    (s.empty() ? "" : ", ") + s;
                rest /= static_cast<std::size_t>(actual.dim(ax));
            }
            return ::testing::AssertionFailure()
                << "at [" << s << "]: " << a[i] << " vs expected " << e[i];
        }
    }
    return ::testing::AssertionSuccess();
}

/// |actual − expected| ≤ 1e-6 · (|expected| + the largest |expected| of the tensor): within one
/// part per million of the values' own scale, so that an entry that cancels to nearly 0 is held to
/// what float sums of its terms can give. How two orders of the same sum are compared (the online
/// softmax against the plain one).
inline ::testing::AssertionResult withinOnePpmOfScale(const engine::Tensor& actual,
                                                      const engine::Tensor& expected)
{
    if (actual.shape() != expected.shape())
        return ::testing::AssertionFailure()
            << "shape " << actual.shapeString() << " vs expected " << expected.shapeString();
    const auto a = actual.values();
    const auto e = expected.values();
    double largest = 0;
    for (const float v : e)
        largest = std::max(largest, static_cast<double>(std::abs(v)));
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::abs(static_cast<double>(a[i]) - e[i]) <= 1e-6 * (std::abs(e[i]) + largest)))
            return ::testing::AssertionFailure()
                << "value " << i << ": " << a[i] << " vs expected " << e[i] << " (difference "
                << std::abs(static_cast<double>(a[i]) - e[i]) << ", scale " << largest << ")";
    return ::testing::AssertionSuccess();
}

} // namespace attnviz::test
