#include "engine/naive_attention.h"

#include <cmath>
#include <limits>
#include <vector>

namespace attnviz::test {

using engine::Tensor;

namespace {

bool isBlocked(const engine::AttentionMask& mask, std::int64_t b, std::int64_t i, std::int64_t j,
               std::int64_t nq, std::int64_t nk)
{
    if (mask.causal && j > i)
        return true;
    if (mask.validLengths) {
        const auto& v = *mask.validLengths;
        const std::int64_t len = v.perQuery ? v.lengths[b * nq + i] : v.lengths[b];
        if (j >= len)
            return true;
    }
    if (mask.explicitMask) {
        const auto& e = *mask.explicitMask;
        const std::int64_t at = e.perBatch ? (b * nq + i) * nk + j : i * nk + j;
        if (e.allowed[at] == 0)
            return true;
    }
    return false;
}

} // namespace

// y[b, n, o] = sum_d x[b, n, d] * w[o, d] + bias[o]
Tensor naiveLinear(const Tensor& x, const engine::RowMatrix& w,
                   const std::optional<Eigen::RowVectorXf>& bias, const char* tokens)
{
    const std::int64_t B = x.dim(0), N = x.dim(1), D = x.dim(2), O = w.rows();
    Tensor y({{"batch", B}, {tokens, N}, {"feature", O}});
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t o = 0; o < O; ++o) {
                double sum = bias ? (*bias)(o) : 0.0;
                for (std::int64_t d = 0; d < D; ++d)
                    sum += static_cast<double>(x.at({b, n, d})) * w(o, d);
                y.values()[static_cast<std::size_t>(y.flatIndex({b, n, o}))] =
                    static_cast<float>(sum);
            }
    return y;
}

Tensor naiveSplit(const Tensor& x, std::int64_t heads, const char* tokens, const char* feature)
{
    const std::int64_t B = x.dim(0), N = x.dim(1), P = x.dim(2) / heads;
    Tensor y({{"batch", B}, {"head", heads}, {tokens, N}, {feature, P}});
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < heads; ++h)
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t p = 0; p < P; ++p)
                    y.values()[static_cast<std::size_t>(y.flatIndex({b, h, n, p}))] =
                        x.at({b, n, h * P + p});
    return y;
}

engine::AttentionTrace naiveAttention(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const engine::AttentionWeights& w, int heads,
                                      const engine::AttentionMask& mask, double divisor)
{
    engine::AttentionTrace t;
    const std::int64_t B = query.dim(0), Nq = query.dim(1), Nk = key.dim(1), H = heads;
    t.qProj = naiveLinear(query, w.wQ, w.bQ, "query");
    t.kProj = naiveLinear(key, w.wK, w.bK, "key");
    t.vProj = naiveLinear(value, w.wV, w.bV, "key");
    t.qHeads = naiveSplit(t.qProj, H, "query", "d_k");
    t.kHeads = naiveSplit(t.kProj, H, "key", "d_k");
    t.vHeads = naiveSplit(t.vProj, H, "key", "d_v");
    const std::int64_t Pqk = t.qHeads.dim(3), Pv = t.vHeads.dim(3);

    const std::vector<engine::Axis> scoreAxes = {
        {"batch", B}, {"head", H}, {"query", Nq}, {"key", Nk}};
    t.scores = Tensor(scoreAxes);
    t.scaled = Tensor(scoreAxes);
    t.masked = Tensor(scoreAxes);
    t.weights = Tensor(scoreAxes);
    t.context = Tensor({{"batch", B}, {"head", H}, {"query", Nq}, {"d_v", Pv}});
    const double inf = std::numeric_limits<double>::infinity();

    for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t i = 0; i < Nq; ++i) {
            bool anyOpen = false;
            for (std::int64_t j = 0; j < Nk; ++j)
                anyOpen |= !isBlocked(mask, b, i, j, Nq, Nk);
            if (!anyOpen)
                t.fullyMaskedRows.push_back({b, i});
        }
        for (std::int64_t h = 0; h < H; ++h) {
            for (std::int64_t i = 0; i < Nq; ++i) {
                std::vector<double> logits(static_cast<std::size_t>(Nk));
                for (std::int64_t j = 0; j < Nk; ++j) {
                    double dot = 0;
                    for (std::int64_t p = 0; p < Pqk; ++p)
                        dot += static_cast<double>(t.qHeads.at({b, h, i, p})) *
                            t.kHeads.at({b, h, j, p});
                    const double scaled =
                        dot / (divisor > 0 ? divisor : std::sqrt(static_cast<double>(Pqk)));
                    const double masked = isBlocked(mask, b, i, j, Nq, Nk) ? -inf : scaled;
                    const auto at = static_cast<std::size_t>(t.scores.flatIndex({b, h, i, j}));
                    t.scores.values()[at] = static_cast<float>(dot);
                    t.scaled.values()[at] = static_cast<float>(scaled);
                    t.masked.values()[at] = static_cast<float>(masked);
                    logits[static_cast<std::size_t>(j)] = masked;
                }
                double top = -inf;
                for (double l : logits)
                    top = std::max(top, l);
                double sum = 0;
                for (double& l : logits) {
                    l = top == -inf ? 0.0 : std::exp(l - top);
                    sum += l;
                }
                for (std::int64_t j = 0; j < Nk; ++j) {
                    const double weight = sum > 0 ? logits[static_cast<std::size_t>(j)] / sum : 0;
                    t.weights
                        .values()[static_cast<std::size_t>(t.weights.flatIndex({b, h, i, j}))] =
                        static_cast<float>(weight);
                }
                for (std::int64_t p = 0; p < Pv; ++p) {
                    double acc = 0;
                    for (std::int64_t j = 0; j < Nk; ++j)
                        acc += static_cast<double>(t.weights.at({b, h, i, j})) *
                            t.vHeads.at({b, h, j, p});
                    t.context
                        .values()[static_cast<std::size_t>(t.context.flatIndex({b, h, i, p}))] =
                        static_cast<float>(acc);
                }
            }
        }
    }

    t.concat = Tensor({{"batch", B}, {"query", Nq}, {"feature", H * Pv}});
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t p = 0; p < Pv; ++p)
                    t.concat.values()[static_cast<std::size_t>(
                        t.concat.flatIndex({b, i, h * Pv + p}))] = t.context.at({b, h, i, p});
    t.output = naiveLinear(t.concat, w.wO, w.bO, "query");
    return t;
}

} // namespace attnviz::test
