#pragma once

#include <Eigen/Core>

#include <type_traits>

namespace attnviz::engine {

/// Rows of a float matrix as the products below read them: row r of `cols` values starts at
/// data + r · stride.
struct ConstRowsView {
    const float* data;
    Eigen::Index rows, cols, stride;
};

struct RowsView {
    float* data;
    Eigen::Index rows, cols, stride;
};

/// The rows of a row-major Eigen matrix, map or block of one.
template <typename Matrix> ConstRowsView readRows(const Matrix& m)
{
    static_assert(std::decay_t<Matrix>::IsRowMajor, "rows must be contiguous");
    return {m.data(), m.rows(), m.cols(), m.outerStride()};
}

template <typename Matrix> RowsView writeRows(Matrix&& m)
{
    static_assert(std::decay_t<Matrix>::IsRowMajor, "rows must be contiguous");
    return {m.data(), m.rows(), m.cols(), m.outerStride()};
}

/// c = a bᵀ (+ bias on every row), for a [m × k], b [n × k], c [m × n], on the calling thread.
///
/// Every product of the attention module goes through here rather than through Eigen's GEMM,
/// for exactness: a GEMM sums each entry's k terms in one float chain, and its rounding error
/// grows with k; PyTorch's float32 does the same, so the two would be equally far from the float64
/// trace, each ahead on some steps. Here each entry is a dot product of two rows whose terms are
/// spread over the lanes of a vector (a few terms a lane, then the lanes added pairwise), or, when
/// k is below 64 and the work is small anyway, summed in double and rounded once. So the error of
/// every entry is several times smaller than a float chain's
/// (tests/engine/float32_exactness_test.cpp), and it depends on nothing but the two rows: not on
/// the tile an entry falls in, the thread that computes it or the columns computed beside it.
/// A kept step and the same step recomputed therefore always have the same bits.
void multiplyTransposed(ConstRowsView a, ConstRowsView b, RowsView c, const float* bias = nullptr);

/// c = a bᵀ summed in double and kept in double (`c` row-major, m × n, row stride `cStride`):
/// every entry the exact sum of its products but for roundings in 2^-53, in an order that
/// depends on nothing but the two rows. The products of the exact pass (attention_passes.h),
/// which rounds to float only what the trace keeps. One thread.
void multiplyTransposedInDouble(ConstRowsView a, ConstRowsView b, double* c, Eigen::Index cStride);
/// The same with a's m rows of k values already in double (row stride `aStride`).
void multiplyTransposedInDouble(const double* a, Eigen::Index m, Eigen::Index k,
                                Eigen::Index aStride, ConstRowsView b, double* c,
                                Eigen::Index cStride);
/// The same with b's n rows of k values in double too.
void multiplyTransposedInDouble(const double* a, Eigen::Index m, Eigen::Index k,
                                Eigen::Index aStride, const double* b, Eigen::Index n,
                                Eigen::Index bStride, double* c, Eigen::Index cStride);

/// The same product with c's tiles shared among the engine's threads (the same bits on any
/// number of threads). For products outside a parallel region: the projections.
void multiplyTransposedOnThreads(ConstRowsView a, ConstRowsView b, RowsView c,
                                 const float* bias = nullptr);

} // namespace attnviz::engine
