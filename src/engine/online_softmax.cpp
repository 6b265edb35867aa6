#include "engine/online_softmax.h"

#include "engine/input_error.h"
#include "engine/non_finite.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace attnviz::engine {
namespace {

constexpr float kBlocked = -std::numeric_limits<float>::infinity();

} // namespace

OnlineSoftmaxRow::OnlineSoftmaxRow(Eigen::Index valueSize)
    : m_max(kBlocked)
    , m_output(Eigen::VectorXd::Zero(valueSize))
{
}

void OnlineSoftmaxRow::restart(std::optional<float> sink)
{
    m_max = sink ? *sink : kBlocked;
    m_sum = sink ? 1.0 : 0.0;
    m_output.setZero();
}

double OnlineSoftmaxRow::addTile(const float* masked, Eigen::Index keys)
{
    return addTile(masked, keys, ValueRows(Eigen::Map<const RowMatrix>(masked, keys, 0)));
}

double OnlineSoftmaxRow::addTile(const float* masked, Eigen::Index keys, const ValueRows& values)
{
    const Eigen::Map<const Eigen::VectorXf> s(masked, keys);
    const float tileMax = keys > 0 ? s.maxCoeff() : kBlocked;
    if (tileMax == kBlocked)
        return 1.0; // nothing to read: m and ℓ stay as they were
    const float newMax = std::max(m_max, tileMax);
    // exp(−∞) = 0: with nothing read before, the earlier (empty) sum is dropped.
    const double rescale = std::exp(static_cast<double>(m_max) - static_cast<double>(newMax));
    m_max = newMax;
    // The same float exponentials as the plain softmax, blocked keys exactly 0 (Eigen's
    // vectorised exp returns a denormal for −∞).
    m_exp = (s.array() - newMax).exp();
    for (Eigen::Index j = 0; j < keys; ++j)
        if (s(j) == kBlocked)
            m_exp(j) = 0.0f;
    double tileSum = 0;
    for (Eigen::Index j = 0; j < keys; ++j)
        tileSum += m_exp(j);
    m_sum = m_sum * rescale + tileSum;
    if (m_output.size() > 0) {
        m_output *= rescale;
        for (Eigen::Index j = 0; j < keys; ++j)
            if (m_exp(j) != 0.0f)
                m_output +=
                    static_cast<double>(m_exp(j)) * values.row(j).transpose().cast<double>();
    }
    return rescale;
}

std::vector<OnlineSoftmaxTile> onlineSoftmaxOfRow(const AttentionTrace& t, std::int64_t batch,
                                                  std::int64_t head, std::int64_t query,
                                                  std::optional<float> sink)
{
    if (!t.description.onlineSoftmaxTile)
        throw InputError("this pass computed the softmax of whole rows; choose a key tile to "
                         "follow the online softmax");
    if (!t.has(AttentionStep::Masked) || !t.has(AttentionStep::VHeads))
        throw InputError("the online softmax of a row is replayed from the masked scores and the "
                         "value heads, and this trace did not keep them");
    if (batch < 0 || batch >= t.batchSize() || head < 0 || head >= t.numHeads() || query < 0 ||
        query >= t.queryLength())
        throw InputError("there is no query row " + std::to_string(query) + " of head " +
                         std::to_string(head) + " in batch item " + std::to_string(batch));
    const std::int64_t tile = *t.description.onlineSoftmaxTile, Nk = t.keyLength();
    const auto masked = t.masked.matrix({batch, head}).row(query);
    const ConstMatrixView V =
        t.vHeads.matrix({batch, t.description.keyValueHeadOf(static_cast<int>(head))});
    OnlineSoftmaxRow row(t.valueSize());
    row.restart(sink);
    std::vector<OnlineSoftmaxTile> out;
    for (std::int64_t k0 = 0; k0 < Nk; k0 += tile) {
        const Eigen::Index n = std::min(tile, Nk - k0);
        const Eigen::VectorXf scores = masked.segment(k0, n).transpose();
        OnlineSoftmaxTile step;
        step.firstKey = k0;
        step.keys = n;
        step.tileMax = scores.maxCoeff();
        step.rescale = row.addTile(scores.data(), n, V.middleRows(k0, n));
        step.max = row.max();
        step.sum = row.sum();
        step.accumulated.assign(row.accumulated().data(),
                                row.accumulated().data() + row.accumulated().size());
        out.push_back(std::move(step));
    }
    return out;
}

} // namespace attnviz::engine
