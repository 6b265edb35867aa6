#include "io/checkpoint/weight_slots.h"

namespace attnviz::io {

WeightSlot matrixSlot(std::vector<std::string> names, engine::RowMatrix& into, std::int64_t rows,
                      std::int64_t cols)
{
    return {std::move(names), {rows, cols}, [&into, rows, cols](std::span<const float> values) {
                into = engine::ConstMatrixView(values.data(), rows, cols);
            }};
}

WeightSlot transposedSlot(std::vector<std::string> names, engine::RowMatrix& into,
                          std::int64_t rows, std::int64_t cols)
{
    return {std::move(names), {cols, rows}, [&into, rows, cols](std::span<const float> values) {
                into = engine::ConstMatrixView(values.data(), cols, rows).transpose();
            }};
}

WeightSlot vectorSlot(std::vector<std::string> names, Eigen::RowVectorXf& into, std::int64_t size)
{
    return {std::move(names), {size}, [&into, size](std::span<const float> values) {
                into = Eigen::Map<const Eigen::RowVectorXf>(values.data(), size);
            }};
}

WeightSlot optionalVectorSlot(std::vector<std::string> names,
                              std::optional<Eigen::RowVectorXf>& into, std::int64_t size)
{
    return {std::move(names), {size}, [&into, size](std::span<const float> values) {
                into = Eigen::Map<const Eigen::RowVectorXf>(values.data(), size);
            }};
}

WeightVisitor inLayer(const WeightVisitor& visit, std::size_t layer)
{
    return [&visit, layer](WeightSlot slot) {
        slot.layer = static_cast<int>(layer);
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
