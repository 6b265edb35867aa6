#include "engine/tensor.h"

#include <stdexcept>

namespace attnviz::engine {
namespace {

std::int64_t elementCount(const std::vector<Axis>& axes)
{
    std::int64_t n = 1;
    for (const Axis& axis : axes) {
        if (axis.size < 0)
            throw std::invalid_argument("axis '" + axis.name + "' has a negative size");
        n *= axis.size;
    }
    return n;
}

} // namespace

template <typename Scalar>
BasicTensor<Scalar>::BasicTensor(std::vector<Axis> axes)
    : m_axes(std::move(axes))
    , m_data(static_cast<std::size_t>(elementCount(m_axes)), Scalar(0))
{
}

template <typename Scalar> void BasicTensor<Scalar>::reshape(std::vector<Axis> axes)
{
    const auto n = static_cast<std::size_t>(elementCount(axes));
    m_axes = std::move(axes);
    m_data.resize(n);
}

template <typename Scalar> std::vector<std::int64_t> BasicTensor<Scalar>::shape() const
{
    std::vector<std::int64_t> result;
    result.reserve(m_axes.size());
    for (const Axis& axis : m_axes)
        result.push_back(axis.size);
    return result;
}

template <typename Scalar>
std::int64_t BasicTensor<Scalar>::flatIndex(std::initializer_list<std::int64_t> index) const
{
    if (index.size() != m_axes.size())
        throw std::out_of_range("index of rank " + std::to_string(index.size()) +
                                " into a tensor of rank " + std::to_string(m_axes.size()));
    std::int64_t flat = 0;
    std::size_t axis = 0;
    for (std::int64_t i : index) {
        if (i < 0 || i >= m_axes[axis].size)
            throw std::out_of_range("index " + std::to_string(i) + " outside axis '" +
                                    m_axes[axis].name + "' of size " +
                                    std::to_string(m_axes[axis].size));
        flat = flat * m_axes[axis].size + i;
        ++axis;
    }
    return flat;
}

template <typename Scalar>
Scalar BasicTensor<Scalar>::at(std::initializer_list<std::int64_t> index) const
{
    return m_data[static_cast<std::size_t>(flatIndex(index))];
}

template <typename Scalar>
std::int64_t BasicTensor<Scalar>::matrixOffset(std::initializer_list<std::int64_t> leading) const
{
    if (m_axes.size() < 2 || leading.size() != m_axes.size() - 2)
        throw std::out_of_range("matrix() takes the " + std::to_string(m_axes.size() - 2) +
                                " leading indices of a rank-" + std::to_string(m_axes.size()) +
                                " tensor");
    std::int64_t offset = 0;
    std::size_t axis = 0;
    for (std::int64_t i : leading) {
        if (i < 0 || i >= m_axes[axis].size)
            throw std::out_of_range("index " + std::to_string(i) + " outside axis '" +
                                    m_axes[axis].name + "'");
        offset = offset * m_axes[axis].size + i;
        ++axis;
    }
    return offset * m_axes[axis].size * m_axes[axis + 1].size;
}

template <typename Scalar>
typename BasicTensor<Scalar>::Matrix BasicTensor<Scalar>::matrix(
    std::initializer_list<std::int64_t> leading)
{
    const std::int64_t offset = matrixOffset(leading);
    return {m_data.data() + offset, m_axes[rank() - 2].size, m_axes[rank() - 1].size};
}

template <typename Scalar>
typename BasicTensor<Scalar>::ConstMatrix BasicTensor<Scalar>::matrix(
    std::initializer_list<std::int64_t> leading) const
{
    const std::int64_t offset = matrixOffset(leading);
    return {m_data.data() + offset, m_axes[rank() - 2].size, m_axes[rank() - 1].size};
}

std::string shapeText(std::span<const std::int64_t> sizes)
{
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i)
        s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

std::string shapeText(std::span<const Axis> axes)
{
    std::string s = "(";
    for (std::size_t i = 0; i < axes.size(); ++i)
        s += (i ? ", " : "") + axes[i].name + "=" + std::to_string(axes[i].size);
    return s + ")";
}

template <typename Scalar> std::string BasicTensor<Scalar>::shapeString() const
{
    return shapeText(m_axes);
}

template class BasicTensor<float>;
template class BasicTensor<double>;

} // namespace attnviz::engine
