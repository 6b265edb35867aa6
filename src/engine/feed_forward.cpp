#include "engine/feed_forward.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attnviz::engine {
namespace {

// The tanh approximation of GELU, 0.5·x·(1 + tanh(u)) with u = √(2/π)·(x + 0.044715·x³), in
// float and vectorised. Since 0.5·(1 + tanh(u)) = 1 / (1 + e^(−2u)), it is computed as
// x / (1 + e^(−2u)): one exp per value, and no cancellation in 1 + tanh(u) for negative x. Eigen's
// vectorised exp saturates instead of overflowing, so large |x| give x or a value near zero.
// Values go through in blocks of a fixed size with unaligned loads and the tail is padded into a
// full block: every value is computed by the same instructions wherever it sits in memory, so a
// layer recomputed later gives the very same bits.
constexpr Eigen::Index kGeluBlock = 16;
using GeluBlock = Eigen::Array<float, kGeluBlock, 1>;

inline GeluBlock geluTanhBlock(const GeluBlock& x)
{
    constexpr float kSqrt2OverPi = 0.7978845608028654f; // √(2/π)
    const GeluBlock u = kSqrt2OverPi * (x + 0.044715f * x.cube());
    return x / (1.0f + (-2.0f * u).exp());
}

void geluTanh(const float* in, float* out, std::int64_t n)
{
    // One thread: about 1 ns a value, 3 ms for a 1024-token GPT-2 layer; threads would save
    // little and cost a fork and join, which is slow on a busy machine.
    const std::int64_t blocks = n / kGeluBlock;
    for (std::int64_t b = 0; b < blocks; ++b)
        Eigen::Map<GeluBlock>(out + b * kGeluBlock) =
            geluTanhBlock(Eigen::Map<const GeluBlock>(in + b * kGeluBlock));
    const std::int64_t done = blocks * kGeluBlock;
    if (done < n) {
        GeluBlock tail = GeluBlock::Zero();
        std::copy(in + done, in + n, tail.data());
        tail = geluTanhBlock(tail);
        std::copy(tail.data(), tail.data() + (n - done), out + done);
    }
}

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

// out = activation(in), elementwise.
void activate(Activation activation, const Tensor& in, Tensor& out)
{
    out.reshape(in.axes());
    if (activation == Activation::GeluTanh) { // read `in`, write `out`: no copy first
        geluTanh(in.data(), out.data(), in.size());
        return;
    }
    std::copy(in.values().begin(), in.values().end(), out.values().begin());
    applyActivation(activation, out.values());
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
        geluTanh(values.data(), values.data(), static_cast<std::int64_t>(values.size()));
        break;
    case Activation::Silu:
        for (float& v : values) {
            const double x = v;
            v = static_cast<float>(x / (1.0 + std::exp(-x)));
        }
        break;
    }
}

void feedForward(const Tensor& x, const FeedForwardWeights& w, FeedForwardKind kind,
                 Activation activation, FeedForwardTrace& trace)
{
    linear(x, w.w1, w.b1, trace.hiddenPre);
    if (kind == FeedForwardKind::Gated) {
        linear(x, w.gate, w.bGate, trace.gatePre);
        activate(activation, trace.gatePre, trace.hidden);
        Eigen::Map<Eigen::ArrayXf>(trace.hidden.data(), trace.hidden.size()) *=
            Eigen::Map<const Eigen::ArrayXf>(trace.hiddenPre.data(), trace.hiddenPre.size());
    } else {
        activate(activation, trace.hiddenPre, trace.hidden);
    }
    linear(trace.hidden, w.w2, w.b2, trace.output);
}

} // namespace attnviz::engine
