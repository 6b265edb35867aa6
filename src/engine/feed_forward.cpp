#include "engine/feed_forward.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attnviz::engine {
namespace {

// y = x Wᵀ + b over every row of a [batch, token, in] tensor.
void linear(const Tensor& x, const RowMatrix& w, const std::optional<Eigen::RowVectorXf>& b,
            Tensor& out)
{
    const auto rows = x.dim(0) * x.dim(1);
    out.reshape({x.axes()[0], x.axes()[1], Axis{"feature", w.rows()}});
    ConstMatrixView in(x.data(), rows, x.dim(2));
    MatrixView result(out.data(), rows, w.rows());
    result.noalias() = in * w.transpose();
    if (b)
        result.rowwise() += *b;
}

} // namespace

void applyActivation(Activation activation, std::span<float> values)
{
    switch (activation) {
    case Activation::Relu:
        for (float& v : values)
            v = std::max(v, 0.0f);
        break;
    case Activation::Gelu:
        for (float& v : values) {
            const double x = v;
            v = static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)));
        }
        break;
    case Activation::GeluTanh:
        for (float& v : values) {
            const double x = v;
            const double inner = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x);
            v = static_cast<float>(0.5 * x * (1.0 + std::tanh(inner)));
        }
        break;
    }
}

void feedForward(const Tensor& x, const FeedForwardWeights& w, Activation activation,
                 FeedForwardTrace& trace)
{
    linear(x, w.w1, w.b1, trace.hiddenPre);
    trace.hidden.reshape(trace.hiddenPre.axes());
    std::copy(trace.hiddenPre.values().begin(), trace.hiddenPre.values().end(),
              trace.hidden.values().begin());
    applyActivation(activation, trace.hidden.values());
    linear(trace.hidden, w.w2, w.b2, trace.output);
}

} // namespace attnviz::engine
