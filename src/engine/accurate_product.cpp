#include "engine/accurate_product.h"

#include <algorithm>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace attnviz::engine {
namespace {

using Eigen::Index;
// The widest float vector of the instruction set the engine is built for (ATTNVIZ_ARCH), through
// Eigen's portable packet functions.
using Packet = Eigen::internal::packet_traits<float>::type;
// (The vector type's alignment attribute does not matter to a traits lookup; GCC warns anyway.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
constexpr int kLanes = Eigen::internal::unpacket_traits<Packet>::size;
#pragma GCC diagnostic pop

// Below this many terms a dot product is summed in double: a product of two floats is exact in
// double, so the entry is the float nearest its exact value but for one rounding in 2^-53. Short
// products are cheap whichever way they are summed.
constexpr Index kShortDot = 64;

// Rows of a and of b per register tile: 4 × 4 accumulators and the 8 rows' vectors fit the 32
// vector registers of AVX-512. Tiles at the edges of c are padded by repeating their last row,
// so that every entry is computed by the same instructions wherever it falls.
constexpr int kTile = 4;

// Blocks of c handed to one thread at a time by multiplyTransposedOnThreads: b's 64 rows stay in
// the cache while a's rows pass by.
constexpr Index kBlock = 64;

// A tile's row pointers: rows first … first + 3 of v, the ones past its end repeating its last.
void tileRows(ConstRowsView v, Index first, const float* (&rows)[kTile])
{
    for (Index r = 0; r < kTile; ++r)
        rows[r] = v.data + std::min(first + r, v.rows - 1) * v.stride;
}

#ifdef __AVX512F__
__m512d eightFrom(const float* p)
{
    return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}

__m512d eightFrom(const double* p)
{
    return _mm512_loadu_pd(p);
}
#endif

// Dot products in double: every product of two floats is exact there. 8 terms at a time where
// the instruction set allows, each row's vector converted once for the whole tile. The rows may
// already be double (the exact pass's unrounded steps).
template <typename X, typename Y>
void shortTile(const X* const (&x)[kTile], const Y* const (&y)[kTile], Index k,
               double (&sums)[kTile * kTile])
{
    Index p = 0;
#ifdef __AVX512F__
    __m512d acc[kTile][kTile];
    for (auto& row : acc)
        for (__m512d& a : row)
            a = _mm512_setzero_pd();
    for (; p + 8 <= k; p += 8) {
        __m512d xv[kTile], yv[kTile];
        for (int r = 0; r < kTile; ++r) {
            xv[r] = eightFrom(x[r] + p);
            yv[r] = eightFrom(y[r] + p);
        }
        for (int r = 0; r < kTile; ++r)
            for (int s = 0; s < kTile; ++s)
                acc[r][s] = _mm512_fmadd_pd(xv[r], yv[s], acc[r][s]);
    }
    for (int r = 0; r < kTile; ++r)
        for (int s = 0; s < kTile; ++s)
            sums[r * kTile + s] = _mm512_reduce_add_pd(acc[r][s]);
#else
    for (double& sum : sums)
        sum = 0;
#endif
    for (int r = 0; r < kTile; ++r)
        for (int s = 0; s < kTile; ++s)
            for (Index q = p; q < k; ++q)
                sums[r * kTile + s] += static_cast<double>(x[r][q]) * static_cast<double>(y[s][q]);
}

#ifdef __AVX512F__
// The 16 sums of a tile's accumulators at once, pairwise (512 → 256 → 128 → 64 → 32 bits of
// each): a third of the instructions of 16 separate horizontal sums, which is what bounds a short
// product (64 terms: 4 a lane). The accumulators come column by column (v[4s + r] is row r's,
// column s's), and lane 4r + s of the result holds that one's sum: the tile's sums row-major.
__m512 sumsOf16(const __m512 (&v)[16])
{
    __m512 half[8], quarter[4], eighth[2];
    for (int i = 0; i < 8; ++i)
        half[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44),
                                _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE));
    for (int i = 0; i < 4; ++i)
        quarter[i] = _mm512_add_ps(_mm512_shuffle_f32x4(half[2 * i], half[2 * i + 1], 0x88),
                                   _mm512_shuffle_f32x4(half[2 * i], half[2 * i + 1], 0xDD));
    for (int i = 0; i < 2; ++i)
        eighth[i] = _mm512_add_ps(_mm512_unpacklo_ps(quarter[2 * i], quarter[2 * i + 1]),
                                  _mm512_unpackhi_ps(quarter[2 * i], quarter[2 * i + 1]));
    return _mm512_add_ps(_mm512_shuffle_ps(eighth[0], eighth[1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_ps(eighth[0], eighth[1], _MM_SHUFFLE(3, 2, 3, 2)));
}
#endif

// Long dot products: each entry's terms spread over the lanes (lane l takes terms l, l + kLanes,
// …; the last partial vector padded with zeros), then the lanes added pairwise, then the bias
// (`bias`: the tile's 4 columns', all present) added in float, as a GEMM that starts from the bias
// adds it.
void laneTile(const float* const (&x)[kTile], const float* const (&y)[kTile], Index k,
              const float* bias, float (&sums)[kTile * kTile])
{
    namespace ei = Eigen::internal;
    Packet acc[kTile][kTile];
    for (auto& row : acc)
        for (Packet& a : row)
            a = ei::pset1<Packet>(0.0f);
    Index p = 0;
    for (; p + kLanes <= k; p += kLanes) {
        Packet xv[kTile], yv[kTile];
        for (int r = 0; r < kTile; ++r)
            xv[r] = ei::ploadu<Packet>(x[r] + p);
        for (int s = 0; s < kTile; ++s)
            yv[s] = ei::ploadu<Packet>(y[s] + p);
        for (int r = 0; r < kTile; ++r)
            for (int s = 0; s < kTile; ++s)
                acc[r][s] = ei::pmadd(xv[r], yv[s], acc[r][s]);
    }
    if (p < k) {
        alignas(64) float padded[2 * kTile][kLanes] = {};
        for (int r = 0; r < kTile; ++r) {
            std::copy(x[r] + p, x[r] + k, padded[r]);
            std::copy(y[r] + p, y[r] + k, padded[kTile + r]);
        }
        for (int r = 0; r < kTile; ++r)
            for (int s = 0; s < kTile; ++s)
                acc[r][s] = ei::pmadd(ei::pload<Packet>(padded[r]),
                                      ei::pload<Packet>(padded[kTile + s]), acc[r][s]);
    }
#ifdef __AVX512F__
    if constexpr (kLanes == 16) {
        __m512 byColumn[16];
        for (int r = 0; r < kTile; ++r)
            for (int s = 0; s < kTile; ++s)
                byColumn[kTile * s + r] = acc[r][s];
        __m512 result = sumsOf16(byColumn);
        if (bias) // the tile's 4 biases, once for each of its rows
            result = _mm512_add_ps(result, _mm512_broadcast_f32x4(_mm_loadu_ps(bias)));
        _mm512_storeu_ps(sums, result);
        return;
    }
#endif
    for (int r = 0; r < kTile; ++r)
        for (int s = 0; s < kTile; ++s)
            sums[r * kTile + s] = ei::predux(acc[r][s]) + (bias ? bias[s] : 0.0f);
}

ConstRowsView rowsOf(ConstRowsView v, Index first, Index count)
{
    return {v.data + first * v.stride, count, v.cols, v.stride};
}

} // namespace

void multiplyTransposed(ConstRowsView a, ConstRowsView b, RowsView c, const float* bias)
{
    if (a.rows == 0 || b.rows == 0)
        return;
    // b's rows a block at a time, so that they stay in the cache while all of a's rows pass.
    for (Index jb = 0; jb < b.rows; jb += kBlock)
        for (Index i0 = 0; i0 < a.rows; i0 += kTile) {
            const float* x[kTile];
            tileRows(a, i0, x);
            for (Index j0 = jb; j0 < std::min(jb + kBlock, b.rows); j0 += kTile) {
                const float* y[kTile];
                tileRows(b, j0, y);
                if (a.cols < kShortDot) {
                    double sums[kTile * kTile];
                    shortTile(x, y, a.cols, sums);
                    for (Index r = 0; r < std::min<Index>(kTile, c.rows - i0); ++r)
                        for (Index s = 0; s < std::min<Index>(kTile, c.cols - j0); ++s)
                            c.data[(i0 + r) * c.stride + j0 + s] = static_cast<float>(
                                sums[r * kTile + s] +
                                (bias ? static_cast<double>(bias[j0 + s]) : 0.0));
                    continue;
                }
                float tileBias[kTile];
                if (bias)
                    for (Index s = 0; s < kTile; ++s)
                        tileBias[s] = bias[std::min(j0 + s, b.rows - 1)];
                float sums[kTile * kTile];
                laneTile(x, y, a.cols, bias ? tileBias : nullptr, sums);
                if (i0 + kTile <= c.rows && j0 + kTile <= c.cols) {
                    for (Index r = 0; r < kTile; ++r)
                        std::copy_n(sums + r * kTile, kTile, c.data + (i0 + r) * c.stride + j0);
                } else {
                    for (Index r = 0; r < std::min<Index>(kTile, c.rows - i0); ++r)
                        std::copy_n(sums + r * kTile, std::min<Index>(kTile, c.cols - j0),
                                    c.data + (i0 + r) * c.stride + j0);
                }
            }
        }
}

namespace {

template <typename X, typename Y>
void productInDouble(const X* a, Index m, Index k, Index aStride, const Y* b, Index n,
                     Index bStride, double* c, Index cStride)
{
    if (m == 0 || n == 0)
        return;
    for (Index i0 = 0; i0 < m; i0 += kTile) {
        const X* x[kTile];
        for (Index r = 0; r < kTile; ++r)
            x[r] = a + std::min(i0 + r, m - 1) * aStride;
        for (Index j0 = 0; j0 < n; j0 += kTile) {
            const Y* y[kTile];
            for (Index r = 0; r < kTile; ++r)
                y[r] = b + std::min(j0 + r, n - 1) * bStride;
            double sums[kTile * kTile];
            shortTile(x, y, k, sums);
            for (Index r = 0; r < std::min<Index>(kTile, m - i0); ++r)
                std::copy_n(sums + r * kTile, std::min<Index>(kTile, n - j0),
                            c + (i0 + r) * cStride + j0);
        }
    }
}

} // namespace

void multiplyTransposedInDouble(ConstRowsView a, ConstRowsView b, double* c, Index cStride)
{
    productInDouble(a.data, a.rows, a.cols, a.stride, b.data, b.rows, b.stride, c, cStride);
}

void multiplyTransposedInDouble(const double* a, Index m, Index k, Index aStride, ConstRowsView b,
                                double* c, Index cStride)
{
    productInDouble(a, m, k, aStride, b.data, b.rows, b.stride, c, cStride);
}

void multiplyTransposedInDouble(const double* a, Index m, Index k, Index aStride, const double* b,
                                Index n, Index bStride, double* c, Index cStride)
{
    productInDouble(a, m, k, aStride, b, n, bStride, c, cStride);
}

void multiplyTransposedOnThreads(ConstRowsView a, ConstRowsView b, RowsView c, const float* bias)
{
    const Index rowBlocks = (a.rows + kBlock - 1) / kBlock;
    const Index tasks = rowBlocks * ((b.rows + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (tasks > 1)
    for (Index task = 0; task < tasks; ++task) {
        const Index i0 = task % rowBlocks * kBlock, j0 = task / rowBlocks * kBlock;
        const Index rows = std::min(kBlock, a.rows - i0), cols = std::min(kBlock, b.rows - j0);
        multiplyTransposed(rowsOf(a, i0, rows), rowsOf(b, j0, cols),
                           {c.data + i0 * c.stride + j0, rows, cols, c.stride},
                           bias ? bias + j0 : nullptr);
    }
}

} // namespace attnviz::engine
