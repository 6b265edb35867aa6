#include "io/checkpoint/weight_slots.h"

#include <algorithm>

namespace attnviz::io {

void transposeInto(const StoredTensor& values, std::int64_t rows, std::int64_t cols,
                   std::initializer_list<engine::RowMatrix*> parts)
{
    constexpr Eigen::Index kTile = 32;
    const auto width = cols / static_cast<std::int64_t>(parts.size());
    for (engine::RowMatrix* part : parts)
        part->resize(width, rows);
    engine::RowMatrix strip(kTile, cols);
    for (Eigen::Index r0 = 0; r0 < rows; r0 += kTile) {
        const Eigen::Index n = std::min(kTile, rows - r0);
        values.convertInto({strip.data(), static_cast<std::size_t>(n * cols)},
                           static_cast<std::size_t>(r0 * cols));
        Eigen::Index first = 0; // the part's first stored column
        for (engine::RowMatrix* part : parts) {
            for (Eigen::Index c = 0; c < width; c += kTile) {
                const Eigen::Index m = std::min(kTile, width - c);
                part->block(c, r0, m, n) = strip.block(0, first + c, n, m).transpose();
            }
            first += width;
        }
    }
}

WeightSlot matrixSlot(std::vector<std::string> names, engine::RowMatrix& into, std::int64_t rows,
                      std::int64_t cols)
{
    return {std::move(names), {rows, cols}, [&into, rows, cols](const StoredTensor& values) {
                into.resize(rows, cols);
                values.convertInto({into.data(), static_cast<std::size_t>(into.size())});
            }};
}

WeightSlot transposedSlot(std::vector<std::string> names, engine::RowMatrix& into,
                          std::int64_t rows, std::int64_t cols)
{
    return {std::move(names), {cols, rows}, [&into, rows, cols](const StoredTensor& values) {
                transposeInto(values, cols, rows, {&into});
            }};
}

WeightSlot vectorSlot(std::vector<std::string> names, Eigen::RowVectorXf& into, std::int64_t size)
{
    return {std::move(names), {size}, [&into, size](const StoredTensor& values) {
                into.resize(size);
                values.convertInto({into.data(), static_cast<std::size_t>(size)});
            }};
}

WeightSlot optionalVectorSlot(std::vector<std::string> names,
                              std::optional<Eigen::RowVectorXf>& into, std::int64_t size)
{
    return {std::move(names), {size}, [&into, size](const StoredTensor& values) {
                values.convertInto({into.emplace(size).data(), static_cast<std::size_t>(size)});
            }};
}

WeightVisitor inLayer(const WeightVisitor& visit, std::size_t layer)
{
    return [&visit, layer](WeightSlot slot) {
        slot.layer = static_cast<int>(layer);
        visit(std::move(slot));
    };
}

WeightVisitor inFeedForward(const WeightVisitor& visit)
{
    return [&visit](WeightSlot slot) {
        slot.feedForward = true;
        visit(std::move(slot));
    };
}

void visitLayerNorm(const WeightVisitor& visit, const std::string& base,
                    engine::LayerNormWeights& into, std::int64_t size, bool oldNames)
{
    std::vector<std::string> gain{base + ".weight"}, bias{base + ".bias"};
    if (oldNames) {
        gain.push_back(base + ".gamma");
        bias.push_back(base + ".beta");
    }
    visit(vectorSlot(std::move(gain), into.gain, size));
    visit(vectorSlot(std::move(bias), into.bias, size));
}

} // namespace attnviz::io
