#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace attnviz::engine {

/// Row-major matrix: rows are tokens, columns are features (docs/conventions.md). Float
/// everywhere but in the exact pass of the attention module, which computes in double.
template <typename Scalar>
using RowMatrixOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrix = RowMatrixOf<float>;
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

/// A dense, contiguous, row-major tensor whose axes carry names.
///
/// Every intermediate of the engine is one of these, in float (`Tensor`); the exact pass of the
/// attention module holds its unrounded steps in double (`WideTensor`). The last two axes form
/// matrices, so a view can look at one head of one batch item as an Eigen matrix without copying
/// (`matrix({b, h})`).
template <typename Scalar> class BasicTensor {
public:
    using Matrix = Eigen::Map<RowMatrixOf<Scalar>>;
    using ConstMatrix = Eigen::Map<const RowMatrixOf<Scalar>>;

    BasicTensor() = default;
    /// A zero-filled tensor with the given axes.
    explicit BasicTensor(std::vector<Axis> axes);

    /// Changes the axes, keeping the allocation when it is large enough: the engine reuses a
    /// trace across runs so that a slider in the app does not allocate the whole trace again.
    /// Contents are unspecified afterwards.
    void reshape(std::vector<Axis> axes);

    const std::vector<Axis>& axes() const { return m_axes; }
    std::size_t rank() const { return m_axes.size(); }
    std::int64_t dim(std::size_t axis) const { return m_axes.at(axis).size; }
    std::vector<std::int64_t> shape() const;
    std::int64_t size() const { return static_cast<std::int64_t>(m_data.size()); }

    std::span<Scalar> values() { return m_data; }
    std::span<const Scalar> values() const { return m_data; }
    Scalar* data() { return m_data.data(); }
    const Scalar* data() const { return m_data.data(); }

    /// Element at a full multi-index; checked, for tests and tooltips rather than inner loops.
    Scalar at(std::initializer_list<std::int64_t> index) const;
    std::int64_t flatIndex(std::initializer_list<std::int64_t> index) const;

    /// The matrix spanned by the last two axes at the given leading indices, e.g. `matrix({b, h})`
    /// on a `[batch, head, query, key]` tensor. A rank-2 tensor takes `matrix({})`.
    Matrix matrix(std::initializer_list<std::int64_t> leading);
    ConstMatrix matrix(std::initializer_list<std::int64_t> leading) const;

    /// "(batch=2, head=4, query=5, key=7)"
    std::string shapeString() const;

private:
    std::int64_t matrixOffset(std::initializer_list<std::int64_t> leading) const;

    std::vector<Axis> m_axes;
    std::vector<Scalar> m_data;
};

using Tensor = BasicTensor<float>;
using WideTensor = BasicTensor<double>;
extern template class BasicTensor<float>;
extern template class BasicTensor<double>;

} // namespace attnviz::engine
