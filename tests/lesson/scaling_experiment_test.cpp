#include "lesson/playground.h"
#include "lesson/scaling_experiment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace attnviz::lesson {
namespace {

std::shared_ptr<const Walkthrough> playground(MaskKind mask = MaskKind::None)
{
    PlaygroundSettings s;
    s.modelWidth = 64;
    s.heads = 2;
    s.mask = mask;
    return computePlayground(s);
}

TEST(ScalingExperiment, TheDividedScoresAreTheScoresOverTheDivisor)
{
    const auto w = playground();
    for (const double divisor : {1.0, 2.5, 40.0}) {
        const auto r =
            std::get<std::shared_ptr<const Walkthrough>>(rescaledWalkthrough(*w, divisor));
        const auto scores = r->trace->scores.values(), scaled = r->trace->scaled.values();
        for (std::size_t k = 0; k < scores.size(); ++k)
            ASSERT_NEAR(scaled[k], scores[k] / divisor, 1e-5 * (1 + std::abs(scores[k])));
        // the scores themselves do not depend on the divisor
        EXPECT_TRUE(std::equal(scores.begin(), scores.end(), w->trace->scores.values().begin()));
    }
    // √d_k gives back the walkthrough's own computation
    const auto same = std::get<std::shared_ptr<const Walkthrough>>(
        rescaledWalkthrough(*w, std::sqrt(double(w->dk()))));
    const auto a = same->trace->weights.values(), b = w->trace->weights.values();
    for (std::size_t k = 0; k < a.size(); ++k)
        ASSERT_NEAR(a[k], b[k], 1e-6);
}

// #23: the scaled step states the variance of the scores it shows, over the cells the mask lets
// through, and the largest magnitude its colour bar reaches.
TEST(ScalingExperiment, TheScaledSpreadIsThatOfTheUnblockedScaledScores)
{
    const auto w = playground(MaskKind::Causal);
    const std::optional<ScaledSpread> spread = scaledScoreSpread(*w);
    ASSERT_TRUE(spread);
    const auto scaled = w->trace->scaled.values(), masked = w->trace->masked.values();
    std::vector<double> kept;
    for (std::size_t k = 0; k < scaled.size(); ++k)
        if (!std::isinf(masked[k]))
            kept.push_back(scaled[k]);
    ASSERT_LT(kept.size(), scaled.size()); // the causal mask blocked some
    const double mean = std::accumulate(kept.begin(), kept.end(), 0.0) / double(kept.size());
    double sum = 0, largest = 0;
    for (const double v : kept) {
        sum += (v - mean) * (v - mean);
        largest = std::max(largest, std::abs(v));
    }
    EXPECT_NEAR(spread->variance, sum / double(kept.size()), 1e-6 * (1 + spread->variance));
    EXPECT_DOUBLE_EQ(spread->largest, largest);
    EXPECT_GT(spread->variance, 0);
}

TEST(ScalingExperiment, ALargerDivisorFlattensTheSoftmax)
{
    const auto w = playground();
    double previousEntropy = -1, previousLargest = 2;
    for (const double divisor : {0.25, 1.0, 4.0, 64.0}) {
        const auto r =
            std::get<std::shared_ptr<const Walkthrough>>(rescaledWalkthrough(*w, divisor));
        const SoftmaxStatistics s = softmaxStatistics(*r, 0, 0);
        EXPECT_GT(s.meanEntropy, previousEntropy) << divisor;
        EXPECT_LT(s.meanLargestWeight, previousLargest) << divisor;
        EXPECT_LE(s.meanEntropy, s.meanUniformEntropy + 1e-9);
        EXPECT_NEAR(s.scaledVariance, s.scoreVariance / (divisor * divisor),
                    1e-4 * s.scoreVariance);
        previousEntropy = s.meanEntropy;
        previousLargest = s.meanLargestWeight;
    }
    // divided by 64 the six keys are nearly equal: the entropy approaches ln 6
    EXPECT_NEAR(previousEntropy, std::log(6.0), 0.02);
}

TEST(ScalingExperiment, StatisticsSkipBlockedCellsAndCountEveryOpenOne)
{
    const auto w = playground(MaskKind::Causal);
    const SoftmaxStatistics s = softmaxStatistics(*w, 0, 1, 10);
    ASSERT_EQ(s.edges.size(), 11u);
    EXPECT_EQ(std::accumulate(s.counts.begin(), s.counts.end(), 0), 6 * 7 / 2);
    // under a causal mask row i sees i + 1 keys: the uniform entropies are ln 1 … ln 6
    double uniform = 0;
    for (int k = 1; k <= 6; ++k)
        uniform += std::log(double(k));
    EXPECT_NEAR(s.meanUniformEntropy, uniform / 6, 1e-12);
}

TEST(ScalingExperiment, DotProductsOfUnitVarianceVectorsHaveAVarianceOfAboutDk)
{
    const int dks[] = {1, 4, 16, 64, 256};
    const auto points = dotProductVariance(dks, 4000, 7);
    ASSERT_EQ(points.size(), 5u);
    for (const VariancePoint& p : points) {
        // 4000 samples (a fixed seed): the estimate's standard error is 2–4.5 % of d_k (the most
        // for d_k = 1, whose products are far from normal); 15 % is over three of them
        EXPECT_NEAR(p.variance / p.dk, 1.0, 0.15) << p.dk;
        EXPECT_DOUBLE_EQ(p.scaledVariance, p.variance / p.dk);
    }
    EXPECT_GT(points.back().variance, 100 * points.front().variance);
}

TEST(ScalingExperiment, AnImportCannotBeRescaled)
{
    auto w = std::make_shared<Walkthrough>(*playground());
    w->source = ImportSource{"x", 0, engine::Block::Self};
    EXPECT_TRUE(std::holds_alternative<std::string>(rescaledWalkthrough(*w, 2.0)));
}

} // namespace
} // namespace attnviz::lesson
