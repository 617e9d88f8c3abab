// Private to kernels/cuda: pools one 64 x 64 block of map values (block_values.cuh's layout) into
// the cells of a pyramid's finest level, for the generic pyramid kernels (tile_pyramid.cu,
// gated_pyramid.cu). Values are >= 0, so a cell's max can be combined as integer bits.
#pragma once

#include <cstdint>

#include "kernels/cuda/block_values.cuh"
#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda::detail::blocks {

// Block (br, bc) of `vals` into cells of 2^level tokens: mean and max at mean, maxGrid (side x
// side, row-major). Cells of 64+ tokens span several blocks and are combined with atomics (the
// caller zeroes the level first); smaller cells belong to this block alone and are stored.
// `scratch` holds 2 x 64 x 32 floats. All threads of the CTA (kThreads) must call it.
__device__ inline void poolBlock(float (*vals)[kEdge + 1], float* scratch, int64_t br, int64_t bc,
                                 int level, int64_t side, int64_t n, float* mean, float* maxGrid) {
    const int cs = 1 << min(level, 30);
    if (cs == 1) {
        for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
            const int r = idx / kEdge, cc = idx % kEdge;
            if (br + r < side && bc + cc < side) {
                mean[(br + r) * side + bc + cc] = vals[r][cc];
                maxGrid[(br + r) * side + bc + cc] = vals[r][cc];
            }
        }
        return;
    }
    if (cs >= kEdge) {  // the whole block lies in one cell: block reduce, then atomics
        float s = 0.f, m = 0.f;
        for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
            const float x = vals[idx / kEdge][idx % kEdge];
            s += x;
            m = fmaxf(m, x);
        }
        for (int off = 16; off > 0; off >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, off);
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
        }
        __shared__ float ws[kThreads / 32], wm[kThreads / 32];
        if (threadIdx.x % 32 == 0) {
            ws[threadIdx.x / 32] = s;
            wm[threadIdx.x / 32] = m;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            float total = 0.f, mx = 0.f;
            for (int w = 0; w < kThreads / 32; ++w) {
                total += ws[w];
                mx = fmaxf(mx, wm[w]);
            }
            const int64_t r = br >> level, c = bc >> level;
            atomicAdd(mean + r * side + c, total / cellArea(r, c, level, n));
            atomicMax(reinterpret_cast<int*>(maxGrid + r * side + c), __float_as_int(mx));
        }
        return;
    }
    // 2 <= cs <= 32: rows reduced over cs columns, then cells over cs rows.
    const int cells = kEdge / cs;
    float* psum = scratch;                  // 64 x cells
    float* pmax = scratch + kEdge * cells;  // 64 x cells
    for (int idx = threadIdx.x; idx < kEdge * cells; idx += kThreads) {
        const int r = idx / cells, cc = idx % cells;
        float s = 0.f, m = 0.f;
        for (int x = 0; x < cs; ++x) {
            const float v = vals[r][cc * cs + x];
            s += v;
            m = fmaxf(m, v);
        }
        psum[idx] = s;
        pmax[idx] = m;
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < cells * cells; idx += kThreads) {
        const int cr = idx / cells, cc = idx % cells;
        float s = 0.f, m = 0.f;
        for (int y = 0; y < cs; ++y) {
            s += psum[(cr * cs + y) * cells + cc];
            m = fmaxf(m, pmax[(cr * cs + y) * cells + cc]);
        }
        const int64_t gr = (br >> level) + cr, gc = (bc >> level) + cc;
        if (gr < side && gc < side) {
            mean[gr * side + gc] = s / cellArea(gr, gc, level, n);
            maxGrid[gr * side + gc] = m;
        }
    }
}

}  // namespace gatescope::kernels::cuda::detail::blocks
