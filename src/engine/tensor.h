#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace attnviz::engine {

/// Row-major float matrix: rows are tokens, columns are features (docs/conventions.md).
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixView = Eigen::Map<RowMatrix>;
using ConstMatrixView = Eigen::Map<const RowMatrix>;

/// One named axis of a tensor, e.g. {"query", 5}. The names are what the views print on their
/// axes and what the shape line of a step shows: `(batch=2, head=4, query=5, key=7)`.
struct Axis {
    std::string name;
    std::int64_t size = 0;

    bool operator==(const Axis&) const = default;
};

/// The one way a shape is printed: "[2, 5, 16]" for sizes, and "(batch=2, query=5, feature=16)"
/// when the axes have names (the shape lines of the steps, Tensor::shapeString).
std::string shapeText(std::span<const std::int64_t> sizes);
std::string shapeText(std::span<const Axis> axes);

/// A dense, contiguous, row-major float tensor whose axes carry names.
///
/// Every intermediate of the engine is one of these. The last two axes form matrices, so a view can
/// look at one head of one batch item as an Eigen matrix without copying (`matrix({b, h})`).
class Tensor {
public:
    Tensor() = default;
    /// A zero-filled tensor with the given axes.
    explicit Tensor(std::vector<Axis> axes);

    /// Changes the axes, keeping the allocation when it is large enough: the engine reuses a
    /// trace across runs so that a slider in the app does not allocate the whole trace again.
    /// Contents are unspecified afterwards.
    void reshape(std::vector<Axis> axes);

    const std::vector<Axis>& axes() const { return m_axes; }
    std::size_t rank() const { return m_axes.size(); }
    std::int64_t dim(std::size_t axis) const { return m_axes.at(axis).size; }
    std::vector<std::int64_t> shape() const;
    std::int64_t size() const { return static_cast<std::int64_t>(m_data.size()); }

    std::span<float> values() { return m_data; }
    std::span<const float> values() const { return m_data; }
    float* data() { return m_data.data(); }
    const float* data() const { return m_data.data(); }

    /// Element at a full multi-index; checked, for tests and tooltips rather than inner loops.
    float at(std::initializer_list<std::int64_t> index) const;
    std::int64_t flatIndex(std::initializer_list<std::int64_t> index) const;

    /// The matrix spanned by the last two axes at the given leading indices, e.g. `matrix({b, h})`
    /// on a `[batch, head, query, key]` tensor. A rank-2 tensor takes `matrix({})`.
    MatrixView matrix(std::initializer_list<std::int64_t> leading);
    ConstMatrixView matrix(std::initializer_list<std::int64_t> leading) const;

    /// "(batch=2, head=4, query=5, key=7)"
    std::string shapeString() const;

private:
    std::int64_t matrixOffset(std::initializer_list<std::int64_t> leading) const;

    std::vector<Axis> m_axes;
    std::vector<float> m_data;
};

} // namespace attnviz::engine
