#pragma once

#include "lesson/walkthrough.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace attnviz::lesson {

/// The module of `w` on its inputs with the scores divided by `divisor` instead of √d_k (1: no
/// scaling; a free temperature otherwise), or why it cannot be run again.
std::variant<std::shared_ptr<const Walkthrough>, std::string> rescaledWalkthrough(
    const Walkthrough& w, double divisor);

/// What the division does to one head's softmax, over the query rows that have a key to see.
struct SoftmaxStatistics {
    double scoreVariance = 0; ///< of Q_h K_hᵀ over the unblocked cells
    double scaledVariance = 0; ///< of the divided scores
    double meanEntropy = 0; ///< of a row of weights, in nats
    double meanUniformEntropy = 0; ///< the same rows spread evenly: ln(keys allowed)
    double meanLargestWeight = 0; ///< 1 when every row is one-hot
    /// The divided scores in equal bins: `edges` has one more entry than `counts`.
    std::vector<double> edges;
    std::vector<int> counts;
};

/// Needs the trace's scores, scaled scores, masked scores and weights.
SoftmaxStatistics softmaxStatistics(const Walkthrough& w, int batch, int head, int bins = 24);

/// The scaled scores a walkthrough shows, over every batch item and head and the cells its mask
/// lets through: their variance and their largest magnitude (the step's colour bar). Null when
/// the trace does not hold them (an import).
struct ScaledSpread {
    double variance = 0;
    double largest = 0;
};
std::optional<ScaledSpread> scaledScoreSpread(const Walkthrough& w);

/// The claim behind ÷√d_k, measured: q · k for `samples` pairs of random q, k whose d_k entries
/// are independent with mean 0 and variance 1 has a variance of about d_k; divided by √d_k,
/// about 1.
struct VariancePoint {
    int dk = 0;
    double variance = 0;
    double scaledVariance = 0;
};
std::vector<VariancePoint> dotProductVariance(std::span<const int> dks, int samples,
                                              std::uint32_t seed);

} // namespace attnviz::lesson
