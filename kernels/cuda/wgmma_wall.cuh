// The Wall instances of the sm_90a forward (wgmma_forward_kernel.cuh): per-thread pieces that
// rescale the thread's own 16-byte chunks of a swizzled tile (the chunks its cp.async copies
// wrote: row r0 + it * rowStep, channels 8 ch .. 8 ch + 7), and the exact diagonal tile for
// gates too steep to factor through one anchor. Included by that header only.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/mma_sm80.cuh"

namespace gatescope::kernels::cuda::detail::wgmma {

/// P of row `row` at channels c0 .. c0 + 7; 0 past the gated channels (their factor is 1).
__device__ __forceinline__ void loadGates8(const float* P, int64_t pRow, int row, int c0, int gated,
                                           float (&out)[8]) {
#pragma unroll
    for (int e = 0; e < 8; ++e)
        out[e] = c0 + e < gated ? __ldg(P + int64_t(row) * pRow + c0 + e) : 0.f;
}

/// Multiplies the 8 bf16 values of a shared-memory chunk by `f` (fp32 products, one rounding).
__device__ __forceinline__ void scaleChunk(unsigned char* chunk, const float (&f)[8]) {
    uint4 x = *reinterpret_cast<uint4*>(chunk);
    uint32_t* w = reinterpret_cast<uint32_t*>(&x);
#pragma unroll
    for (int e = 0; e < 4; ++e)
        w[e] = packPair<__nv_bfloat16>(unpackLo<__nv_bfloat16>(w[e]) * f[2 * e],
                                       unpackHi<__nv_bfloat16>(w[e]) * f[2 * e + 1]);
    *reinterpret_cast<uint4*>(chunk) = x;
}

/// Multiplies the 8 bf16 values of a shared-memory chunk by bf16 pairs `g` (4 HMUL2: the
/// per-tile rescale, where fp32 products cost as much as the softmax).
__device__ __forceinline__ void scaleChunkBf16(unsigned char* chunk, const __nv_bfloat162 (&g)[4]) {
    uint4 x = *reinterpret_cast<uint4*>(chunk);
    __nv_bfloat162* w = reinterpret_cast<__nv_bfloat162*>(&x);
#pragma unroll
    for (int e = 0; e < 4; ++e)
        w[e] = __hmul2(w[e], g[e]);
    *reinterpret_cast<uint4*>(chunk) = x;
}

/// exp(a - b) per channel in bf16 pairs (a, b natural-log P; a >= b gives factors <= 1).
__device__ __forceinline__ void tileFactors(const float (&a)[8], const float (&b)[8],
                                            __nv_bfloat162 (&g)[4]) {
    constexpr float kLog2e = 1.4426950408889634f;
#pragma unroll
    for (int e = 0; e < 4; ++e)
        g[e] = __floats2bfloat162_rn(fastExp2((a[2 * e] - b[2 * e]) * kLog2e),
                                     fastExp2((a[2 * e + 1] - b[2 * e + 1]) * kLog2e));
}

/// Raw logits sum_c q_ic k_jc exp(min(P_ic - P_jc, 0)) of the diagonal tile (keys j0 ..
/// j0 + BN - 1) at the thread's accumulator positions (rows row0, row0 + 8; columns
/// j0 + 8 nt + 2 tq + {0, 1}), from the unscaled operands in global memory: every factor <= 1,
/// any fall of the gates. Rows and keys past n read row n - 1 (the softmax masks them).
template <class T, int D, int BN>
__device__ void wallExactDiagonal(const FlashParams& p, const T* q, const T* k, const float* P,
                                  int j0, int row0, int tq, float (&s)[BN / 2]) {
    const int n = static_cast<int>(p.n), gated = p.wall.gated;
    const int rows[2] = {min(row0, n - 1), min(row0 + 8, n - 1)};
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        s[i] = 0.f;
    for (int c = 0; c < D; ++c) {
        float qi[2], pi[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            qi[h] = float(q[int64_t(rows[h]) * p.qRow + c]);
            pi[h] = c < gated ? P[int64_t(rows[h]) * p.wall.pRow + c] : 0.f;
        }
#pragma unroll
        for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
            for (int b = 0; b < 2; ++b) {
                const int j = min(j0 + nt * 8 + 2 * tq + b, n - 1);
                const float kj = float(k[int64_t(j) * p.wall.kRawRow + c]);
                const float pj = c < gated ? P[int64_t(j) * p.wall.pRow + c] : 0.f;
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    s[nt * 4 + 2 * h + b] =
                        fmaf(qi[h] * kj, __expf(fminf(pi[h] - pj, 0.f)), s[nt * 4 + 2 * h + b]);
            }
    }
}

}  // namespace gatescope::kernels::cuda::detail::wgmma
