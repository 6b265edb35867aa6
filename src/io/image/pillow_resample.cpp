#include "io/image/pillow_resample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace attnviz::io {
namespace {

// Pillow's weights live in fixed point with this many fraction bits (32 − 8 − 2).
constexpr int kPrecisionBits = 22;

struct Filter {
    double (*weight)(double);
    double support;
};

double bilinear(double x)
{
    x = std::abs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

// Keys' cubic with a = −0.5, as Pillow writes it.
double bicubic(double x)
{
    constexpr double a = -0.5;
    x = std::abs(x);
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0)
        return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

// For each output position, the first input sample it reads, how many, and their fixed-point
// weights (Pillow's precompute_coeffs and normalize_coeffs_8bpc).
struct Coefficients {
    int taps = 0;
    std::vector<int> first, count;
    std::vector<std::int32_t> weights; ///< output × taps
};

Coefficients coefficients(int inSize, int outSize, const Filter& filter)
{
    const double scale = static_cast<double>(inSize) / outSize;
    const double filterScale = std::max(scale, 1.0);
    const double support = filter.support * filterScale;
    Coefficients c;
    c.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
    c.first.resize(static_cast<std::size_t>(outSize));
    c.count.resize(static_cast<std::size_t>(outSize));
    c.weights.assign(static_cast<std::size_t>(outSize) * c.taps, 0);
    std::vector<double> k(static_cast<std::size_t>(c.taps));
    const double reciprocal = 1.0 / filterScale; // multiplied, not divided: Pillow's rounding
    for (int xx = 0; xx < outSize; ++xx) {
        const double center = (xx + 0.5) * scale;
        // (int) truncates toward zero, as C's cast in Pillow does.
        const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
        const int xmax = std::min(static_cast<int>(center + support + 0.5), inSize) - xmin;
        double sum = 0;
        for (int x = 0; x < xmax; ++x) {
            k[static_cast<std::size_t>(x)] = filter.weight((x + xmin - center + 0.5) * reciprocal);
            sum += k[static_cast<std::size_t>(x)];
        }
        for (int x = 0; x < xmax; ++x) {
            const double w =
                sum != 0.0 ? k[static_cast<std::size_t>(x)] / sum : k[static_cast<std::size_t>(x)];
            c.weights[static_cast<std::size_t>(xx) * c.taps + x] =
                static_cast<std::int32_t>(w * (1 << kPrecisionBits) + (w < 0 ? -0.5 : 0.5));
        }
        c.first[static_cast<std::size_t>(xx)] = xmin;
        c.count[static_cast<std::size_t>(xx)] = xmax;
    }
    return c;
}

std::uint8_t clip8(std::int64_t v)
{
    if (v >= (std::int64_t{1} << kPrecisionBits << 8))
        return 255;
    if (v <= 0)
        return 0;
    return static_cast<std::uint8_t>(v >> kPrecisionBits);
}

// One pass along x (`horizontal`) or y, rounding to 8 bits.
DecodedImage pass(const DecodedImage& in, int outSize, const Filter& filter, bool horizontal)
{
    const Coefficients c = coefficients(horizontal ? in.width : in.height, outSize, filter);
    DecodedImage out;
    out.width = horizontal ? outSize : in.width;
    out.height = horizontal ? in.height : outSize;
    out.rgb.resize(static_cast<std::size_t>(out.width) * out.height * 3);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) {
            const int o = horizontal ? x : y;
            const int first = c.first[static_cast<std::size_t>(o)];
            const std::int32_t* w = &c.weights[static_cast<std::size_t>(o) * c.taps];
            for (int ch = 0; ch < 3; ++ch) {
                std::int64_t sum = std::int64_t{1} << (kPrecisionBits - 1);
                for (int t = 0; t < c.count[static_cast<std::size_t>(o)]; ++t)
                    sum += static_cast<std::int64_t>(horizontal ? in.at(y, first + t, ch)
                                                                : in.at(first + t, x, ch)) *
                        w[t];
                out.rgb[(static_cast<std::size_t>(y) * out.width + x) * 3 + ch] = clip8(sum);
            }
        }
    return out;
}

} // namespace

std::optional<Resample> resampleFromNumber(long long number)
{
    if (number == 2)
        return Resample::Bilinear;
    if (number == 3)
        return Resample::Bicubic;
    return std::nullopt;
}

DecodedImage resizeLikePillow(const DecodedImage& image, int width, int height, Resample resample)
{
    const Filter filter =
        resample == Resample::Bicubic ? Filter{bicubic, 2.0} : Filter{bilinear, 1.0};
    if (width == image.width)
        return height == image.height ? image : pass(image, height, filter, false);
    DecodedImage across = pass(image, width, filter, true);
    return height == image.height ? across : pass(across, height, filter, false);
}

} // namespace attnviz::io
