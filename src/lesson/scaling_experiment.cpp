#include "lesson/scaling_experiment.h"

#include "engine/multi_head_attention.h"
#include "lesson/walkthrough_variant.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace attnviz::lesson {
namespace {

bool blocked(float v)
{
    return std::isinf(v) && v < 0;
}

// Mean and variance of a sample, in one pass (Welford: the scores of a trained model can be
// large and close together).
struct Moments {
    double n = 0, mean = 0, m2 = 0;
    void add(double x)
    {
        n += 1;
        const double d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }
    double variance() const { return n > 1 ? m2 / n : 0; }
};

} // namespace

std::variant<std::shared_ptr<const Walkthrough>, std::string> rescaledWalkthrough(
    const Walkthrough& w, double divisor)
{
    if (auto why = whyNotRecomputable(w))
        return *why;
    engine::AttentionDescription description = w.description();
    description.scoreScale = 1.0 / divisor;
    auto module =
        std::make_shared<const engine::MultiHeadAttention>(w.module->describedAs(description));
    return withTrace(w,
                     module->forward(*w.queryInput, *w.keyValueInput, *w.keyValueInput, w.mask,
                                     w.rerunOptions(engine::AttentionKeep::all())),
                     w.mask, module);
}

SoftmaxStatistics softmaxStatistics(const Walkthrough& w, int batch, int head, int bins)
{
    const engine::AttentionTrace& t = *w.trace;
    const auto scores = t.scores.matrix({batch, head});
    const auto scaled = t.scaled.matrix({batch, head});
    const auto masked = t.masked.matrix({batch, head});
    const auto weights = t.weights.matrix({batch, head});
    SoftmaxStatistics s;
    Moments raw, divided;
    double low = INFINITY, high = -INFINITY;
    int rows = 0;
    for (Eigen::Index i = 0; i < masked.rows(); ++i) {
        int allowed = 0;
        double entropy = 0, largest = 0;
        for (Eigen::Index j = 0; j < masked.cols(); ++j) {
            if (blocked(masked(i, j)))
                continue;
            ++allowed;
            raw.add(scores(i, j));
            divided.add(scaled(i, j));
            low = std::min(low, double(scaled(i, j)));
            high = std::max(high, double(scaled(i, j)));
            const double p = weights(i, j);
            if (p > 0)
                entropy -= p * std::log(p);
            largest = std::max(largest, p);
        }
        if (allowed == 0)
            continue;
        ++rows;
        s.meanEntropy += entropy;
        s.meanUniformEntropy += std::log(double(allowed));
        s.meanLargestWeight += largest;
    }
    if (rows > 0) {
        s.meanEntropy /= rows;
        s.meanUniformEntropy /= rows;
        s.meanLargestWeight /= rows;
    }
    s.scoreVariance = raw.variance();
    s.scaledVariance = divided.variance();
    if (rows == 0 || bins < 1)
        return s;
    if (high == low) {
        low -= 0.5;
        high += 0.5;
    }
    const double width = (high - low) / bins;
    for (int b = 0; b <= bins; ++b)
        s.edges.push_back(low + b * width);
    s.counts.assign(static_cast<std::size_t>(bins), 0);
    for (Eigen::Index i = 0; i < masked.rows(); ++i)
        for (Eigen::Index j = 0; j < masked.cols(); ++j)
            if (!blocked(masked(i, j))) {
                const int b =
                    std::clamp(static_cast<int>((scaled(i, j) - low) / width), 0, bins - 1);
                ++s.counts[static_cast<std::size_t>(b)];
            }
    return s;
}

std::optional<ScaledSpread> scaledScoreSpread(const Walkthrough& w)
{
    const engine::AttentionTrace& t = *w.trace;
    if (!t.has(engine::AttentionStep::Scaled) || !t.has(engine::AttentionStep::Masked))
        return std::nullopt;
    Moments all;
    double largest = 0;
    for (std::int64_t b = 0; b < t.batchSize(); ++b)
        for (std::int64_t h = 0; h < t.numHeads(); ++h) {
            const auto scaled = t.scaled.matrix({b, h});
            const auto masked = t.masked.matrix({b, h});
            for (Eigen::Index i = 0; i < masked.rows(); ++i)
                for (Eigen::Index j = 0; j < masked.cols(); ++j)
                    if (!blocked(masked(i, j))) {
                        all.add(scaled(i, j));
                        largest = std::max(largest, std::abs(double(scaled(i, j))));
                    }
        }
    return ScaledSpread{all.variance(), largest};
}

std::vector<VariancePoint> dotProductVariance(std::span<const int> dks, int samples,
                                              std::uint32_t seed)
{
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<VariancePoint> points;
    for (const int dk : dks) {
        Moments moments;
        for (int n = 0; n < samples; ++n) {
            double dot = 0;
            for (int t = 0; t < dk; ++t)
                dot += normal(generator) * normal(generator);
            moments.add(dot);
        }
        const double variance = moments.variance();
        points.push_back({dk, variance, variance / dk});
    }
    return points;
}

} // namespace attnviz::lesson
