// Exact tile recompute and pyramid levels on the GPU for the additive log-decay family, from the
// O(N) factors (q, k, c, lse). The value of a cell is computed as kernels/cpu/tile_recompute.cpp
// does: logit = scale * q.k + (c_i - c_j); attention exp(logit - lse_i); decay exp(c_i - c_j).
// The pyramid kernel reduces each 64 x 64 block of cells on chip into the finest level's cells;
// the full-resolution map is never written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda {
namespace {

using detail::asStream;
using detail::lastLaunchError;
using detail::toFloat;

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
};

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

template <class T>
__global__ void __launch_bounds__(kThreads)
    tileKernel(Factors f, MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
               float* out) {
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    blockValues<T>(f, kind, row0 + br, col0 + bc, stage, vals);
    for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
        const int r = idx / kEdge, cc = idx % kEdge;
        if (br + r < rows && bc + cc < cols) out[(br + r) * cols + bc + cc] = vals[r][cc];
    }
}

// Finest-level cells: sum (double) and max (float bits, values >= 0, so integer order is float
// order). Each CTA reduces one 64 x 64 block of the band into its cells.
template <class T>
__global__ void __launch_bounds__(kThreads)
    pyramidKernel(Factors f, MapKind kind, int level, int64_t side, double* sum, float* maxGrid) {
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    // Skip blocks with no allowed cell: above the diagonal or left of the window band.
    if (bc > br + kEdge - 1) return;
    if (f.window > 0 && bc + kEdge - 1 < br - f.window + 1) return;
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    blockValues<T>(f, kind, br, bc, stage, vals);

    const int cs = 1 << min(level, 30);
    if (cs == 1) {
        for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
            const int r = idx / kEdge, cc = idx % kEdge;
            if (br + r < side && bc + cc < side) {
                sum[(br + r) * side + bc + cc] = vals[r][cc];
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
            double total = 0.0;
            float mx = 0.f;
            for (int w = 0; w < kThreads / 32; ++w) {
                total += ws[w];
                mx = fmaxf(mx, wm[w]);
            }
            const int64_t cell = (br >> level) * side + (bc >> level);
            atomicAdd(sum + cell, total);
            atomicMax(reinterpret_cast<int*>(maxGrid + cell), __float_as_int(mx));
        }
        return;
    }
    // 2 <= cs <= 32: rows reduced over cs columns, then cells over cs rows. The block owns its
    // cells, so plain stores.
    const int cells = kEdge / cs;
    float* psum = stage;                  // 64 x cells
    float* pmax = stage + kEdge * cells;  // 64 x cells
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
        double s = 0.0;
        float m = 0.f;
        for (int y = 0; y < cs; ++y) {
            s += psum[(cr * cs + y) * cells + cc];
            m = fmaxf(m, pmax[(cr * cs + y) * cells + cc]);
        }
        const int64_t gr = (br >> level) + cr, gc = (bc >> level) + cc;
        if (gr < side && gc < side) {
            sum[gr * side + gc] = s;
            maxGrid[gr * side + gc] = m;
        }
    }
}

__device__ __forceinline__ int64_t extent(int64_t r, int level, int64_t n) {
    const int64_t begin = r << level;
    return min((r + 1) << level, n) - begin;
}

__global__ void meanKernel(const double* sum, int64_t side, int level, int64_t n, float* mean) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= side * side) return;
    const int64_t r = idx / side, c = idx % side;
    mean[idx] = static_cast<float>(sum[idx] / (static_cast<double>(extent(r, level, n)) *
                                               static_cast<double>(extent(c, level, n))));
}

__global__ void coarsenKernel(const double* sum, const float* maxGrid, int64_t side, double* upSum,
                              float* upMax, int64_t upSide) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= upSide * upSide) return;
    const int64_t r = idx / upSide, c = idx % upSide;
    double s = 0.0;
    float m = 0.f;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) {
            const int64_t rr = 2 * r + y, cc = 2 * c + x;
            if (rr < side && cc < side) {
                s += sum[rr * side + cc];
                m = fmaxf(m, maxGrid[rr * side + cc]);
            }
        }
    upSum[idx] = s;
    upMax[idx] = m;
}

Factors toFactors(const DeviceHeadFactors& h) {
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
    return f;
}

std::string checkFactors(const DeviceHeadFactors& h, MapKind kind) {
    if (h.n < 0) return "negative n";
    if (kind != MapKind::Decay && (!h.q || !h.k || h.dk < 1)) return "map needs q and k";
    if (kind == MapKind::Attention && !h.lse) return "attention map needs the row lse";
    return {};
}

unsigned blocksFor(int64_t count, int threads) {
    return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace

std::string computeTile(const DeviceHeadFactors& head, MapKind kind, int64_t row0, int64_t rows,
                        int64_t col0, int64_t cols, float* out, void* stream) {
    if (rows <= 0 || cols <= 0) return {};
    if (std::string e = checkFactors(head, kind); !e.empty()) return "computeTile: " + e;
    if ((rows + kEdge - 1) / kEdge > 65535) return "computeTile: over 4M rows in one tile";
    const Factors f = toFactors(head);
    const dim3 grid(blocksFor(cols, kEdge), blocksFor(rows, kEdge));
    detail::withElementType(head.dtype, [&](auto tag) {
        tileKernel<decltype(tag)>
            <<<grid, kThreads, 0, asStream(stream)>>>(f, kind, row0, rows, col0, cols, out);
        return 0;
    });
    return lastLaunchError("computeTile launch");
}

int64_t pyramidSide(int64_t n, int level) {
    if (n <= 0) return 0;
    return ((n - 1) >> level) + 1;
}

std::string buildPyramid(const DeviceHeadFactors& head, MapKind kind, int finestLevel,
                         int coarsestLevel, float* const* maxOut, float* const* meanOut,
                         void* stream) {
    if (kind == MapKind::Logit) return "buildPyramid: no pyramid of the logit map";
    if (std::string e = checkFactors(head, kind); !e.empty()) return "buildPyramid: " + e;
    if (finestLevel < 0 || coarsestLevel < finestLevel || coarsestLevel > 62)
        return "buildPyramid: bad level range";
    const int64_t n = head.n;
    if (n == 0) return {};
    const int64_t blocks = (n + kEdge - 1) / kEdge;
    if (blocks > 65535) return "buildPyramid: n over 4M tokens";
    const cudaStream_t s = asStream(stream);
    const int64_t side = pyramidSide(n, finestLevel);
    const int64_t upSide = pyramidSide(n, finestLevel + 1);
    double* sums = nullptr;
    const size_t bytes = sizeof(double) * size_t(side * side + upSide * upSide);
    cudaError_t error = cudaMallocAsync(reinterpret_cast<void**>(&sums), bytes, s);
    if (error != cudaSuccess) return detail::cudaMessage(error, "buildPyramid scratch");
    double* cur = sums;
    double* next = sums + side * side;
    std::string result;
    auto check = [&](const char* what) {
        if (result.empty()) result = lastLaunchError(what);
        return result.empty();
    };
    cudaMemsetAsync(cur, 0, sizeof(double) * side * side, s);
    cudaMemsetAsync(maxOut[0], 0, sizeof(float) * side * side, s);
    const Factors f = toFactors(head);
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(blocks));
    detail::withElementType(head.dtype, [&](auto tag) {
        pyramidKernel<decltype(tag)>
            <<<grid, kThreads, 0, s>>>(f, kind, finestLevel, side, cur, maxOut[0]);
        return 0;
    });
    int64_t levelSide = side;
    for (int level = finestLevel; check("buildPyramid reduce"); ++level) {
        const int idx = level - finestLevel;
        meanKernel<<<blocksFor(levelSide * levelSide, 256), 256, 0, s>>>(cur, levelSide, level, n,
                                                                         meanOut[idx]);
        if (!check("buildPyramid mean") || level == coarsestLevel) break;
        const int64_t up = pyramidSide(n, level + 1);
        coarsenKernel<<<blocksFor(up * up, 256), 256, 0, s>>>(cur, maxOut[idx], levelSide, next,
                                                              maxOut[idx + 1], up);
        std::swap(cur, next);
        levelSide = up;
    }
    error = cudaFreeAsync(sums, s);
    if (result.empty() && error != cudaSuccess)
        result = detail::cudaMessage(error, "buildPyramid free");
    return result;
}

}  // namespace gatescope::kernels::cuda
