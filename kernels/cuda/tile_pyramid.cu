// Exact tile recompute and pyramid levels on the GPU for the additive log-decay family, from the
// O(N) factors (q, k, c, lse). The value of a cell is computed as kernels/cpu/tile_recompute.cpp
// does: logit = scale * q.k + (c_i - c_j); attention exp(logit - lse_i); decay exp(c_i - c_j).
// buildPyramids writes the finest level through attention_pyramid_mma.cu (tensor cores),
// decay_pyramid.cu (from c alone) or the generic kernel here, which reduces each 64 x 64 block of
// cells on chip into the finest level's cells; the full-resolution map is never written. Coarser
// levels are pooled from the finest.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/pyramid_launch.h"

namespace gatescope::kernels::cuda {
namespace {

using detail::asStream;
using detail::blocksFor;
using detail::cellArea;
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

// d += a b, one m16n8k16 tile with fp32 accumulation (PTX mma.sync; traps below sm_80, where the
// host never launches it: see buildPyramids).
template <class T>
__device__ __forceinline__ void mmaTile(float* d, const uint32_t* a, uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();
#else
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#endif
}

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
                    mmaTile<T>(acc[t], a, pair(&sk[col][ks + 2 * tig]),
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

// Finest-level cells: mean and max (float bits, values >= 0, so integer order is float order).
// Each CTA reduces one 64 x 64 block of the band into its cells; blockIdx.z is the head (its
// cells at mean, maxGrid + head * side^2).
template <class T, bool Mma>
__global__ void __launch_bounds__(kThreads)
    pyramidKernel(Factors batch, MapKind kind, int level, int64_t side, float* mean,
                  float* maxGrid) {
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    // Skip blocks with no allowed cell: above the diagonal or left of the window band.
    if (bc > br + kEdge - 1) return;
    if (batch.window > 0 && bc + kEdge - 1 < br - batch.window + 1) return;
    const Factors f = headOf<T>(batch, blockIdx.z);
    mean += int64_t(blockIdx.z) * side * side;
    maxGrid += int64_t(blockIdx.z) * side * side;
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    if constexpr (Mma)
        blockValuesMma<T>(f, kind, br, bc, stage, vals);
    else
        blockValues<T>(f, kind, br, bc, stage, vals);

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
            atomicAdd(mean + r * side + c, total / cellArea(r, c, level, f.n));
            atomicMax(reinterpret_cast<int*>(maxGrid + r * side + c), __float_as_int(mx));
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
        float s = 0.f, m = 0.f;
        for (int y = 0; y < cs; ++y) {
            s += psum[(cr * cs + y) * cells + cc];
            m = fmaxf(m, pmax[(cr * cs + y) * cells + cc]);
        }
        const int64_t gr = (br >> level) + cr, gc = (bc >> level) + cc;
        if (gr < side && gc < side) {
            mean[gr * side + gc] = s / cellArea(gr, gc, level, f.n);
            maxGrid[gr * side + gc] = m;
        }
    }
}

// Level `level` + 1 from level `level` (both for every head, stored one after another, head h
// at h * side^2): the max of the four children, and their mean weighted by the tokens each
// covers. Grid: x covers a row of cells, y strides over the rows, z is the head.
__global__ void coarsenKernel(const float* mean, const float* maxGrid, int64_t side, int level,
                              int64_t n, float* upMean, float* upMax, int64_t upSide) {
    const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= upSide) return;
    mean += blockIdx.z * side * side;
    maxGrid += blockIdx.z * side * side;
    for (int64_t r = blockIdx.y; r < upSide; r += gridDim.y) {
        float s = 0.f, m = 0.f;
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
                const int64_t rr = 2 * r + y, cc = 2 * c + x;
                if (rr < side && cc < side) {
                    s += mean[rr * side + cc] * cellArea(rr, cc, level, n);
                    m = fmaxf(m, maxGrid[rr * side + cc]);
                }
            }
        const int64_t idx = (blockIdx.z * upSide + r) * upSide + c;
        upMean[idx] = s / cellArea(r, c, level + 1, n);
        upMax[idx] = m;
    }
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
    f.qHead = f.kHead = f.vecHead = 0;
    f.kvGroup = 1;
    return f;
}

std::string checkFactors(const DeviceHeadFactors& h, MapKind kind) {
    if (h.n < 0) return "negative n";
    if (kind != MapKind::Decay && (!h.q || !h.k || h.dk < 1)) return "map needs q and k";
    if (kind == MapKind::Attention && !h.lse) return "attention map needs the row lse";
    return {};
}

// Writes the finest level's cell means into `mean` and maxima into `maxGrid` (heads x side^2
// each): the decay map from c alone, the attention map on tensor cores where the shape allows,
// else the generic block kernel.
std::string finestLevelCells(const Factors& f, DType dtype, MapKind kind, int level, int64_t side,
                             int heads, float* mean, float* maxGrid, cudaStream_t s) {
    if (kind == MapKind::Decay) {
        detail::DecayPyramidParams params{};
        params.c = f.c;
        params.n = f.n;
        params.window = f.window;
        params.vecHead = f.vecHead;
        params.level = level;
        params.side = side;
        params.mean = mean;
        params.max = maxGrid;
        return detail::launchDecayPyramid(params, heads, s);
    }
    // The attention kernels write only the cells they visit (causal, inside the window).
    cudaMemsetAsync(mean, 0, sizeof(float) * heads * side * side, s);
    cudaMemsetAsync(maxGrid, 0, sizeof(float) * heads * side * side, s);
    detail::AttentionPyramidParams params{};
    params.q = f.q;
    params.k = f.k;
    params.c = f.c;
    params.lse = f.lse;
    params.n = f.n;
    params.window = f.window;
    params.qRow = f.qRow;
    params.kRow = f.kRow;
    params.qHead = f.qHead;
    params.kHead = f.kHead;
    params.vecHead = f.vecHead;
    params.kvGroup = f.kvGroup;
    params.scale = f.scale;
    params.level = level;
    params.side = side;
    params.mean = mean;
    params.max = maxGrid;
    if (detail::attentionPyramidMmaFits(params, f.dk, dtype)) {
        std::string result = detail::launchAttentionPyramidMma(params, heads, f.dk, dtype, s);
        if (result != "sm80") return result;
    }
    const int64_t blocks = (f.n + kEdge - 1) / kEdge;
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(blocks),
                    static_cast<unsigned>(heads));
    detail::withElementType(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, float>) {
            // Tensor cores where the build has sm_80+ code for this device.
            cudaFuncAttributes attributes{};
            if (cudaFuncGetAttributes(&attributes, pyramidKernel<T, true>) == cudaSuccess &&
                attributes.ptxVersion >= 80) {
                pyramidKernel<T, true>
                    <<<grid, kThreads, 0, s>>>(f, kind, level, side, mean, maxGrid);
                return 0;
            }
            cudaGetLastError();
        }
        pyramidKernel<T, false><<<grid, kThreads, 0, s>>>(f, kind, level, side, mean, maxGrid);
        return 0;
    });
    return lastLaunchError("buildPyramid finest level");
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
    return buildPyramids(head, PyramidHeads{}, kind, finestLevel, coarsestLevel, maxOut, meanOut,
                         stream);
}

std::string buildPyramids(const DeviceHeadFactors& head, const PyramidHeads& batch, MapKind kind,
                          int finestLevel, int coarsestLevel, float* const* maxOut,
                          float* const* meanOut, void* stream) {
    if (kind == MapKind::Logit) return "buildPyramid: no pyramid of the logit map";
    if (std::string e = checkFactors(head, kind); !e.empty()) return "buildPyramid: " + e;
    if (finestLevel < 0 || coarsestLevel < finestLevel || coarsestLevel > 62)
        return "buildPyramid: bad level range";
    if (batch.heads < 1 || batch.heads > 65535 || batch.kvGroup < 1)
        return "buildPyramid: bad head batch";
    const int64_t n = head.n;
    if (n == 0) return {};
    const int64_t blocks = (n + kEdge - 1) / kEdge;
    if (blocks > 65535) return "buildPyramid: n over 4M tokens";
    const int heads = batch.heads;
    const cudaStream_t s = asStream(stream);
    const int64_t side = pyramidSide(n, finestLevel);
    Factors f = toFactors(head);
    f.qHead = batch.qHeadStride ? batch.qHeadStride : n * f.qRow;
    f.kHead = batch.kHeadStride ? batch.kHeadStride : n * f.kRow;
    f.vecHead = batch.vecHeadStride ? batch.vecHeadStride : n;
    f.kvGroup = batch.kvGroup;
    std::string result =
        finestLevelCells(f, head.dtype, kind, finestLevel, side, heads, meanOut[0], maxOut[0], s);
    int64_t levelSide = side;
    for (int level = finestLevel; result.empty() && level < coarsestLevel; ++level) {
        const int idx = level - finestLevel;
        const int64_t up = pyramidSide(n, level + 1);
        const dim3 grid(blocksFor(up, 256), static_cast<unsigned>(std::min<int64_t>(up, 65535)),
                        static_cast<unsigned>(heads));
        coarsenKernel<<<grid, 256, 0, s>>>(meanOut[idx], maxOut[idx], levelSide, level, n,
                                           meanOut[idx + 1], maxOut[idx + 1], up);
        result = lastLaunchError("buildPyramid coarsen");
        levelSide = up;
    }
    return result;
}

}  // namespace gatescope::kernels::cuda
