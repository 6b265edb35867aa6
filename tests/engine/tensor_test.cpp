#include "engine/tensor.h"

#include <gtest/gtest.h>

namespace attnviz::engine {
namespace {

Tensor counting(std::vector<Axis> axes)
{
    Tensor t(std::move(axes));
    float k = 0;
    for (float& x : t.values())
        x = k++;
    return t;
}

TEST(Tensor, IsRowMajorWithNamedAxes)
{
    const Tensor t = counting({{"batch", 2}, {"head", 3}, {"query", 4}, {"key", 5}});
    EXPECT_EQ(t.size(), 120);
    EXPECT_EQ(t.at({1, 2, 3, 4}), 119.0f);
    EXPECT_EQ(t.at({0, 1, 0, 2}), 22.0f);
    EXPECT_EQ(t.shapeString(), "(batch=2, head=3, query=4, key=5)");
    EXPECT_EQ(t.shape(), (std::vector<std::int64_t>{2, 3, 4, 5}));
}

TEST(Tensor, MatrixViewsTheLastTwoAxesWithoutCopying)
{
    Tensor t = counting({{"batch", 2}, {"head", 3}, {"query", 4}, {"key", 5}});
    const ConstMatrixView m = std::as_const(t).matrix({1, 2});
    EXPECT_EQ(m.rows(), 4);
    EXPECT_EQ(m.cols(), 5);
    EXPECT_EQ(m(0, 0), t.at({1, 2, 0, 0}));
    EXPECT_EQ(m(3, 1), t.at({1, 2, 3, 1}));
    EXPECT_EQ(m.data(), t.data() + 100);
    t.matrix({0, 0})(1, 1) = -7.0f;
    EXPECT_EQ(t.at({0, 0, 1, 1}), -7.0f);
}

TEST(Tensor, MatrixOfARankTwoTensorTakesNoIndex)
{
    const Tensor t = counting({{"query", 2}, {"key", 3}});
    EXPECT_EQ(t.matrix({})(1, 2), 5.0f);
}

TEST(Tensor, OutOfRangeIndexThrows)
{
    const Tensor t({{"query", 2}, {"key", 3}});
    EXPECT_THROW(t.at({2, 0}), std::out_of_range);
    EXPECT_THROW(t.at({0}), std::out_of_range);
    EXPECT_THROW(t.matrix({0}), std::out_of_range);
}

TEST(Tensor, ReshapeKeepsAllocationWhenItFits)
{
    Tensor t({{"a", 10}, {"b", 10}});
    const float* before = t.data();
    t.reshape({{"a", 5}, {"b", 4}});
    EXPECT_EQ(t.size(), 20);
    EXPECT_EQ(t.data(), before);
    EXPECT_EQ(t.shapeString(), "(a=5, b=4)");
}

} // namespace
} // namespace attnviz::engine
