#pragma once

#include "engine/attention_trace.h"
#include "engine/tensor.h"

#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <vector>

namespace attnviz::engine {

/// FlashAttention's online softmax for one query row (Milakov & Gimelshein 2018; Dao et al.
/// 2022): the row's keys arrive a tile at a time, and the row keeps only a running maximum m, a
/// running sum ℓ = Σ exp(s_j − m) and a running output o = Σ exp(s_j − m) v_j over the keys read
/// so far. When a tile raises the maximum, what was summed before is multiplied by
/// exp(m_old − m_new), so at the end o / ℓ is softmax(s) · V without the row ever being whole.
///
/// ℓ and o are held in double: whatever the tile, the result then agrees with the plain softmax
/// (float exponentials, sum in double) to within rounding of the final division.
class OnlineSoftmaxRow {
public:
    explicit OnlineSoftmaxRow(Eigen::Index valueSize = 0);
    /// Forgets every tile read, for the next row. A learned sink (gpt-oss) is read first, as a
    /// key of its own with no value: the row starts from m = sink, ℓ = 1.
    void restart(std::optional<float> sink = std::nullopt);

    /// Reads one tile: the masked scores of its keys (−∞ where blocked) and their value rows
    /// (`values.rows()` = `keys`). A tile whose keys are all blocked
    /// changes nothing. Returns the factor exp(m_old − m_new) that the earlier sum and output were
    /// multiplied by (1 when the maximum stays, 0 when nothing was read before).
    using ValueRows = Eigen::Ref<const RowMatrix, 0, Eigen::OuterStride<>>;
    double addTile(const float* masked, Eigen::Index keys, const ValueRows& values);
    /// The same for m and ℓ alone (a row made without a value size).
    double addTile(const float* masked, Eigen::Index keys);

    /// m: −∞ while every key read so far is blocked.
    float max() const { return m_max; }
    /// ℓ: 0 while every key read so far is blocked.
    double sum() const { return m_sum; }
    /// o, before the division by ℓ.
    const Eigen::VectorXd& accumulated() const { return m_output; }

private:
    float m_max;
    double m_sum = 0;
    Eigen::VectorXd m_output;
    Eigen::VectorXf m_exp; // exp(s − m) of the tile being read
};

/// One tile of one query row's online softmax, for the lesson that steps through it.
struct OnlineSoftmaxTile {
    std::int64_t firstKey = 0;
    std::int64_t keys = 0;
    float tileMax = 0; ///< the largest masked score of the tile (−∞ when all are blocked)
    float max = 0; ///< m after the tile
    double sum = 0; ///< ℓ after the tile
    double rescale = 1; ///< exp(m_old − m_new): what the earlier ℓ and o were multiplied by
    std::vector<double> accumulated; ///< o after the tile, before the division by ℓ
};

/// Replays query row `query` of head `head` (batch item `batch`) of a trace made with an online
/// softmax, from its masked scores and values: one entry per tile. The trace must keep the
/// masked scores and the value heads; throws InputError otherwise, or for indices out of range.
/// With learned sinks the row starts from its head's sink (the trace's description says so; the
/// sink logits come with the module's weights, `sinks`).
std::vector<OnlineSoftmaxTile> onlineSoftmaxOfRow(const AttentionTrace& trace, std::int64_t batch,
                                                  std::int64_t head, std::int64_t query,
                                                  std::optional<float> sink = std::nullopt);

} // namespace attnviz::engine
