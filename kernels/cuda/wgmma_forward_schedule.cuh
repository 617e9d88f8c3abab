// The schedule of the sm_90a wgmma forward (wgmma_forward_kernel.cuh, launched from
// attention_forward_wgmma.cu): warpgroups per CTA, the K/V stage ring and how far ahead it loads,
// CTA grouping, the thresholds between its variants, its shared memory, and the swizzled tile load.
// Included by those two only.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/cuda/mma_sm80.cuh"
#include "kernels/cuda/mma_sm90.cuh"

namespace gatescope::kernels::cuda::detail::wgmma {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kNegInf = -INFINITY;
constexpr float kLazyRescale = 8.f;  // log2 units, as attention_forward_mma.cu

// Consumer warpgroups per CTA (64 query rows each); 255 registers a thread at d = 128, one CTA an
// SM.
constexpr int kWarpgroups = 2;
// Ping-pong at d = 64: 3 consumer warpgroups taking turns at the tensor cores (192 query rows a
// CTA; 168 registers a thread). With 2, each warpgroup's serial path (MMA issue, loads, softmax)
// left the tensor cores idle two thirds of the time. d = 128 takes turns with 2.
constexpr int kWarpgroupsPP = 3;

// Ping-pong (d = 128 always, d = 64 from kPingPongMinN keys). K/V tiles go through a ring of
// kStages stages, loaded kAhead tiles ahead by bulk tensor copies (TMA) that thread 0 issues,
// with one "full" mbarrier per stage (no CTA barrier in the loop), and named barriers make the
// warpgroups issue their MMAs in turn, so that one warpgroup's softmax runs while the other's
// MMAs occupy the tensor cores. d = 64 below kPingPongMinN: double buffer, one CTA barrier a tile.
// d = 128: Q and three 64 KB stages fill the 227 KB. A stage is free for reloading once both
// warpgroups are past the iteration that read it (the other one may be an iteration behind), and
// S = Q K^T reads K a tile ahead of the V that O += P V reads, so stage x holds K_x with V_{x-1}
// (V lags K by one tile): every MMA of iteration t reads stage t + 1, loaded two iterations
// before (kAhead 2). Against the double buffer this replaced (H200, bf16, causal): 1.13x at 1k
// keys, 1.25x at 16k, 1.15x at 64k (docs/benchmarks.md).
template <bool PP, int D>
constexpr bool kLagV = D == 128 && PP;
template <bool PP, int D>
constexpr int kStages = PP ? (D == 64 ? 5 : 3) : 2;
template <bool PP, int D>
constexpr int kAheadOf = kLagV<PP, D> ? 2 : 3;
// Ping-pong CTAs go in groups of kGroup adjacent query blocks of one head (longest rows first
// between groups), so that CTAs running together share their K/V tiles through L2.
constexpr int kGroup = 4;
// Ping-pong from this many keys (below, few tiles per CTA: the double-buffered kernel with 64-key
// tiles is faster; at 2048 keys on an H100, FoX 271 vs 251 TFLOP/s and no gate 295 vs 283; at
// 4096 the ping-pong's no gate wins, 347 vs 336, FoX level; medians of 3).
constexpr int64_t kPingPongMinN = 4096;
// Below kPingPongMinN at d = 64: key tiles of 64 and at most 128 registers a thread, so that two
// CTAs share an SM and one's start-up and epilogue hide under the other's MMAs (at 1024 keys a CTA
// sees 1 to 16 tiles; with one CTA an SM the latency of its first loads and of its epilogue showed:
// FoX 175 -> 213 TFLOP/s at N = 1024 on an H100). At d = 128 the accumulators alone need 64
// registers, and the same shape spills and serializes the wgmmas (C7513).
constexpr int kShortBlockN = 64;
// Windows of at most kNarrowWindow keys at d = 64 over N >= 4 windows: one warpgroup a CTA (64
// rows, so the window's masked edge tiles cover fewer rows), four CTAs an SM. GatedFWA, window
// 512, H100: 181-187 -> 221-234 TFLOP/s from N = 2k; at 1k (2 windows) it was slower, 175 -> 148.
constexpr int64_t kNarrowWindow = 1024;

template <int D, int WG, bool PP, int BN>
constexpr size_t smemBytes() {
    // Q, the K and V stages, the stages of c_j (+ scratch), the mbarriers; 1024 for aligning.
    constexpr int kS = kStages<PP, D>;
    return size_t(64 * WG) * D * 2 + 2 * kS * size_t(BN) * D * 2 + (kS * BN + 32) * sizeof(float) +
           kS * sizeof(uint64_t) + 1024;
}

// Rows [row0, row0 + Rows) of a [n][D] head into a swizzled tile; rows past n zero-filled. The
// row step is a multiple of 8, so each thread's swizzle (row % 8) is fixed.
template <class T, int D, int Rows, int Threads>
__device__ __forceinline__ void loadTile(unsigned char* tile, const T* src, int64_t stride,
                                         int row0, int n) {
    constexpr int kChunks = D / 8;
    constexpr int kRowStep = Threads / kChunks;
    constexpr int kIters = (Rows + kRowStep - 1) / kRowStep;
    static_assert(Threads % kChunks == 0 && kRowStep % 8 == 0);
    const int r0 = threadIdx.x / kChunks, ch = threadIdx.x % kChunks;
    const int rowsLeft = n - row0 - r0;
    const T* from = src + (row0 + r0) * stride + ch * 8;
    const int64_t step = kRowStep * stride;
    unsigned char* to = tile + swizzledOffset(r0, ch, Rows);
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
        const bool valid = it * kRowStep < rowsLeft;
        // Rows not a multiple of the step (3 warpgroups): the last step's rows past the tile
        // issue nothing.
        if constexpr (Rows % kRowStep == 0)
            cpAsync16(to + it * kRowStep * 128, valid ? from : src, valid);
        else
            cpAsync16If(to + it * kRowStep * 128, valid ? from : src, valid,
                        it * kRowStep + r0 < Rows);
        from += step;
    }
}

}  // namespace gatescope::kernels::cuda::detail::wgmma
