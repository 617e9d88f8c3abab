// Private to kernels/cuda: the padded shared-memory tiles of the tensor-core kernels and their
// asynchronous loads (attention_forward_mma.cu, attention_pyramid_mma.cu).
#pragma once

#include <cstdint>

#include "kernels/cuda/mma_sm80.cuh"

namespace gatescope::kernels::cuda::detail {

/// Row pitch in elements of a padded [rows][D] 16-bit tile: the 16-byte pad puts the eight rows
/// an ldmatrix reads in distinct banks.
template <int D>
constexpr int smemRow() {
    return D + 8;
}

/// Copies rows [row0, row0 + Rows) of a [n][D] head (row stride `stride`) into a padded shared
/// tile through cp.async; rows past n are zero-filled. Each thread copies the same 16-byte column
/// of every (Threads / (D / 8))-th row: one address computation, then a constant step per copy.
template <class T, int D, int Rows, int Threads>
__device__ __forceinline__ void loadTile(T* tile, const T* src, int64_t stride, int row0, int n) {
    constexpr int kChunks = D / 8;  // 16-byte chunks per row
    constexpr int kRowStep = Threads / kChunks;
    static_assert(Threads % kChunks == 0 && Rows % kRowStep == 0);
    const int r0 = threadIdx.x / kChunks, ch = threadIdx.x % kChunks;
    const int rowsLeft = n - row0 - r0;
    const T* from = src + (row0 + r0) * stride + ch * 8;
    const int64_t step = kRowStep * stride;
    T* to = tile + r0 * smemRow<D>() + ch * 8;
#pragma unroll
    for (int it = 0; it < Rows / kRowStep; ++it) {
        const bool valid = it * kRowStep < rowsLeft;
        cpAsync16(to + it * kRowStep * smemRow<D>(), valid ? from : src, valid);
        from += step;
    }
}

}  // namespace gatescope::kernels::cuda::detail
