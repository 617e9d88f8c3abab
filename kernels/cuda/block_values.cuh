// Private to kernels/cuda: the generic 64 x 64 block of map values that tile recompute
// (tile_recompute.cu) and the generic pyramid kernel (tile_pyramid.cu) are built from, computed
// from the O(N) factors as kernels/cpu/tile_recompute.cpp does: logit = scale * q.k + (c_i - c_j);
// attention exp(logit - lse_i); decay exp(c_i - c_j). fp32 FMA for any q, k; mma.sync for
// 16-bit ones.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/mma_sm80.cuh"

namespace gatescope::kernels::cuda::detail::blocks {

constexpr int kEdge = 64;      // cells per block edge
constexpr int kDChunk = 32;    // q/k channels staged in shared memory at a time
constexpr int kThreads = 256;  // 16 x 16 threads, 4 x 4 cells each

struct Factors {
    const void* q;
    const void* k;
    int64_t qRow, kRow;
    const float* c;
    const float* lse;
    int64_t n, window;
    int dk;
    float scale;
    // Batched heads (pyramidKernel): head h reads q + h * qHead, k + (h / kvGroup) * kHead and
    // c, lse + h * vecHead.
    int64_t qHead, kHead, vecHead;
    int kvGroup;
};

// Head `h`'s factors of a batch.
template <class T>
__device__ __forceinline__ Factors headOf(const Factors& f, int h) {
    Factors g = f;
    if (f.q) g.q = static_cast<const T*>(f.q) + h * f.qHead;
    if (f.k) g.k = static_cast<const T*>(f.k) + (h / f.kvGroup) * f.kHead;
    if (f.c) g.c = f.c + h * f.vecHead;
    if (f.lse) g.lse = f.lse + h * f.vecHead;
    return g;
}

__device__ __forceinline__ bool allowed(const Factors& f, int64_t i, int64_t j) {
    return i >= 0 && j >= 0 && i < f.n && j < f.n && j <= i && (f.window <= 0 || j > i - f.window);
}

__device__ __forceinline__ float cellValue(const Factors& f, MapKind kind, int64_t i, int64_t j,
                                           float dot) {
    if (!allowed(f, i, j)) return kind == MapKind::Logit ? -INFINITY : 0.f;
    const float bias = f.c ? f.c[i] - f.c[j] : 0.f;
    if (kind == MapKind::Decay) return expf(bias);
    const float logit = fmaf(f.scale, dot, bias);
    if (kind == MapKind::Logit) return logit;
    return expf(logit - f.lse[i]);
}

// Computes the 64 x 64 block of values with top-left cell (r0, c0) into vals[64][65]. Uses the
// staging buffer `stage` (2 x 64 x 33 floats). All threads of the CTA must call it.
template <class T>
__device__ void blockValues(const Factors& f, MapKind kind, int64_t r0, int64_t c0, float* stage,
                            float (*vals)[kEdge + 1]) {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    float dot[4][4] = {};
    if (kind != MapKind::Decay) {
        float(*sq)[kDChunk + 1] = reinterpret_cast<float(*)[kDChunk + 1]>(stage);
        float(*sk)[kDChunk + 1] = sq + kEdge;
        const T* q = static_cast<const T*>(f.q);
        const T* k = static_cast<const T*>(f.k);
        for (int d0 = 0; d0 < f.dk; d0 += kDChunk) {
            __syncthreads();
            for (int idx = threadIdx.x; idx < kEdge * kDChunk; idx += kThreads) {
                const int r = idx / kDChunk, d = idx % kDChunk;
                const int64_t i = r0 + r, j = c0 + r;
                const bool inD = d0 + d < f.dk;
                sq[r][d] = inD && i >= 0 && i < f.n ? toFloat(q[i * f.qRow + d0 + d]) : 0.f;
                sk[r][d] = inD && j >= 0 && j < f.n ? toFloat(k[j * f.kRow + d0 + d]) : 0.f;
            }
            __syncthreads();
#pragma unroll 4
            for (int d = 0; d < kDChunk; ++d) {
                float a[4], b[4];
#pragma unroll
                for (int x = 0; x < 4; ++x) {
                    a[x] = sq[ty + 16 * x][d];
                    b[x] = sk[tx + 16 * x][d];
                }
#pragma unroll
                for (int y = 0; y < 4; ++y)
#pragma unroll
                    for (int x = 0; x < 4; ++x)
                        dot[y][x] = fmaf(a[y], b[x], dot[y][x]);
            }
        }
    }
#pragma unroll
    for (int y = 0; y < 4; ++y)
#pragma unroll
        for (int x = 0; x < 4; ++x) {
            const int r = ty + 16 * y, cc = tx + 16 * x;
            vals[r][cc] = cellValue(f, kind, r0 + r, c0 + cc, dot[y][x]);
        }
    __syncthreads();
}

// blockValues for 16-bit q and k on tensor cores (mma.sync m16n8k16, fp32 accumulation): the
// products of 16-bit values are exact in fp32, so dots differ from the FMA path only in summation
// order. Each of the 8 warps owns a 16 x 32 slice of the block. Stages kDChunk channels of q and
// k as 16-bit values in `stage` (rows padded to kMmaRow halves: conflict-free fragment loads).
constexpr int kMmaRow = kDChunk + 8;

template <class T>
__device__ void blockValuesMma(const Factors& f, MapKind kind, int64_t r0, int64_t c0, float* stage,
                               float (*vals)[kEdge + 1]) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, tig = lane % 4;
    const int rt = warp / 2, ct0 = (warp % 2) * 4;
    float acc[4][4] = {};
    if (kind != MapKind::Decay) {
        uint16_t(*sq)[kMmaRow] = reinterpret_cast<uint16_t(*)[kMmaRow]>(stage);
        uint16_t(*sk)[kMmaRow] = sq + kEdge;
        const uint16_t* q = static_cast<const uint16_t*>(f.q);
        const uint16_t* k = static_cast<const uint16_t*>(f.k);
        auto pair = [](const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); };
        for (int d0 = 0; d0 < f.dk; d0 += kDChunk) {
            __syncthreads();
            for (int idx = threadIdx.x; idx < kEdge * kDChunk; idx += kThreads) {
                const int r = idx / kDChunk, d = idx % kDChunk;
                const int64_t i = r0 + r, j = c0 + r;
                const bool inD = d0 + d < f.dk;
                sq[r][d] = inD && i >= 0 && i < f.n ? q[i * f.qRow + d0 + d] : uint16_t{0};
                sk[r][d] = inD && j >= 0 && j < f.n ? k[j * f.kRow + d0 + d] : uint16_t{0};
            }
            __syncthreads();
#pragma unroll
            for (int ks = 0; ks < kDChunk; ks += 16) {
                uint32_t a[4];
                a[0] = pair(&sq[rt * 16 + g][ks + 2 * tig]);
                a[1] = pair(&sq[rt * 16 + g + 8][ks + 2 * tig]);
                a[2] = pair(&sq[rt * 16 + g][ks + 8 + 2 * tig]);
                a[3] = pair(&sq[rt * 16 + g + 8][ks + 8 + 2 * tig]);
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    const int col = (ct0 + t) * 8 + g;
                    mma16816<T>(acc[t], a, pair(&sk[col][ks + 2 * tig]),
                                pair(&sk[col][ks + 8 + 2 * tig]));
                }
            }
        }
    }
#pragma unroll
    for (int t = 0; t < 4; ++t) {
        const int r = rt * 16 + g, cc = (ct0 + t) * 8 + 2 * tig;
        vals[r][cc] = cellValue(f, kind, r0 + r, c0 + cc, acc[t][0]);
        vals[r][cc + 1] = cellValue(f, kind, r0 + r, c0 + cc + 1, acc[t][1]);
        vals[r + 8][cc] = cellValue(f, kind, r0 + r + 8, c0 + cc, acc[t][2]);
        vals[r + 8][cc + 1] = cellValue(f, kind, r0 + r + 8, c0 + cc + 1, acc[t][3]);
    }
    __syncthreads();
}

/// The factors of one head (batch strides 0, kvGroup 1) in the blocks' form.
inline Factors toFactors(const DeviceHeadFactors& h) {
    Factors f{};
    f.q = h.q;
    f.k = h.k;
    f.qRow = h.qRowStride ? h.qRowStride : h.dk;
    f.kRow = h.kRowStride ? h.kRowStride : h.dk;
    f.c = h.logDecayCumsum;
    f.lse = h.lse;
    f.n = h.n;
    f.window = h.window;
    f.dk = h.dk;
    f.scale = h.scale;
    f.qHead = f.kHead = f.vecHead = 0;
    f.kvGroup = 1;
    return f;
}

inline std::string checkFactors(const DeviceHeadFactors& h, MapKind kind) {
    if (h.n < 0) return "negative n";
    if (kind != MapKind::Decay && (!h.q || !h.k || h.dk < 1)) return "map needs q and k";
    if (kind == MapKind::Attention && !h.lse) return "attention map needs the row lse";
    return {};
}

}  // namespace gatescope::kernels::cuda::detail::blocks
