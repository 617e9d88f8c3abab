// Finest pyramid level of the attention map on tensor cores. The structure of the forward
// (attention_forward_mma.cu) without P.V: a CTA of 4 warps owns 128 query rows (two m16 tiles per
// warp, Q fragments held in registers), 64-key tiles of K (and c) are double-buffered through
// cp.async, S = Q K^T runs on mma.sync, and each value exp(scale q.k + c_i - c_j - lse_i) is
// pooled at once into the cells it belongs to. Nothing of the N x N map leaves the registers.
//
// Pooling by cell size CS = 2^level:
//   CS = 16: a warp's m16 tile x 16 keys is a whole cell (8 cells per warp and tile);
//   CS = 32: a warp's 32 rows x 32 keys is a whole cell (2 per warp and tile);
//   CS >= 64: cells span warps (and, from 256, CTAs) and several key tiles: each thread pools
//             across the tiles of one cell column, the warps meet in shared memory when the
//             column ends, and cells wider than the CTA's rows finish with atomics.
// A warp's partial cells are reduced across its lanes with a reduce-scatter (each shuffle round
// halves the cells a lane carries), so 8 cells cost 9 shuffles rather than 40.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/mma_sm80.cuh"
#include "kernels/cuda/pyramid_launch.h"
#include "kernels/cuda/smem_tile.cuh"

namespace gatescope::kernels::cuda::detail {
namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kWarps = 4;
constexpr int kMTiles = 2;
constexpr int kBlockM = 16 * kMTiles * kWarps;  // 128 query rows per CTA
constexpr int kBlockN = 64;
constexpr int kStages = 2;
constexpr int kThreads = 32 * kWarps;

// Cell shapes the kernel is specialised for (Wide: 64 and up).
enum class Cells { C16, C32, Wide };

template <int D>
constexpr size_t smemBytes() {
    return (size_t(kBlockM) + size_t(kStages) * kBlockN) * smemRow<D>() * 2 +
           (kStages * kBlockN + 2 * kWarps) * sizeof(float);
}

struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Warp-wide reduce-scatter of V values per lane: returns, in every lane, the reduction over all
// 32 lanes of value index lane >> (5 - log2 V). Offset is the first shuffle distance (16).
template <int V, int Offset, class Op>
__device__ __forceinline__ float reduceScatter(float* v, Op op, int lane) {
    if constexpr (V == 1) {
        float x = v[0];
#pragma unroll
        for (int off = Offset; off >= 1; off >>= 1)
            x = op(x, __shfl_xor_sync(0xffffffffu, x, off));
        return x;
    } else {
        constexpr int H = V / 2;
        const bool upper = (lane & Offset) != 0;
#pragma unroll
        for (int i = 0; i < H; ++i) {
            const float keep = upper ? v[H + i] : v[i];
            const float send = upper ? v[i] : v[H + i];
            v[i] = op(keep, __shfl_xor_sync(0xffffffffu, send, Offset));
        }
        return reduceScatter<H, Offset / 2, Op>(v, op, lane);
    }
}

// CTAs an SM. d = 64: four (128 registers; a few bytes spill): against three, a 64k-token layer's
// map (cells of 64+) 31.0 instead of 34.5 ms on an H100, a 16k one's (cells of 16) level at 2.09
// against 2.07 ms. d = 128: shared memory allows three at most, and 128 registers spill hundreds
// of bytes.
template <int D>
constexpr int kMinBlocks = D == 64 ? 4 : 2;

template <class T, int D, Cells kCells>
__global__ void __launch_bounds__(kThreads, kMinBlocks<D>)
    attentionPyramid(AttentionPyramidParams p) {
    constexpr int MT = kMTiles, BN = kBlockN, SR = smemRow<D>();
    constexpr int kNT = BN / 8, kKS = D / 16;
    constexpr int kRowCells = kCells == Cells::C16 ? MT : 1;
    constexpr int kColCells = kCells == Cells::C16 ? 4 : kCells == Cells::C32 ? 2 : 1;
    constexpr int kPartials = kRowCells * kColCells;
    extern __shared__ __align__(16) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + kBlockM * SR;
    float* sC = reinterpret_cast<float*>(sK + kStages * BN * SR);
    float* sRed = sC + kStages * BN;  // [warp][sum, max] at the end of a wide cell column

    // Grid as the forward's: heads fastest, the longest query blocks first.
    const int n = static_cast<int>(p.n);
    const int window = p.window >= n ? 0 : static_cast<int>(p.window);
    const int blocks = (n + kBlockM - 1) / kBlockM;
    const int heads = static_cast<int>(gridDim.x / blocks);
    const int head = static_cast<int>(blockIdx.x % heads);
    const int qb = blocks - 1 - static_cast<int>(blockIdx.x / heads);
    const int i0 = qb * kBlockM;
    const int iLast = min(i0 + kBlockM, n) - 1;
    const int level = p.level;
    const int64_t side = p.side;
    float* cellMean = p.mean + head * side * side;
    float* cellMax = p.max + head * side * side;

    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + (head / p.kvGroup) * p.kHead;
    const float* c = p.c ? p.c + head * p.vecHead : nullptr;
    const float* lse = p.lse + head * p.vecHead;

    const int firstKey = window > 0 ? max(i0 - window + 1, 0) : 0;
    const int kStart = firstKey / BN * BN;
    const int tiles = (iLast - kStart) / BN + 1;
    auto tileStart = [&](int t) { return kStart + (tiles - 1 - t) * BN; };
    auto loadK = [&](int t, int stage) {
        const int j0 = tileStart(t);
        loadTile<T, D, BN, kThreads>(sK + stage * BN * SR, k, p.kRow, j0, n);
        if (threadIdx.x < BN) {
            const int j = j0 + threadIdx.x;
            if (c)
                cpAsync4(sC + stage * BN + threadIdx.x, j < n ? c + j : c, j < n);
            else
                sC[stage * BN + threadIdx.x] = 0.f;
        }
    };
    loadTile<T, D, kBlockM, kThreads>(sQ, q, p.qRow, i0, n);
    loadK(0, 0);
    cpAsyncCommit();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const int warpRow0 = i0 + warp * 16 * MT;
    const int warpRowLast = min(warpRow0 + 16 * MT, n) - 1;
    // Per thread row (m-tile mt, half h: row warpRow0 + 16 mt + 8 h + g): c_i, and -lse_i in
    // log2 units (-inf past n, so those rows pool zeros).
    float cRow[MT][2], base[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = warpRow0 + mt * 16 + h * 8 + g;
            cRow[mt][h] = c && i < n ? c[i] : 0.f;
            base[mt][h] = i < n ? -lse[i] * kLog2e : -INFINITY;
        }

    float poolSum[kPartials], poolMax[kPartials];
#pragma unroll
    for (int x = 0; x < kPartials; ++x)
        poolSum[x] = poolMax[x] = 0.f;
    uint32_t qf[MT][kKS][4];

    for (int t = 0; t < tiles; ++t) {
        const int stage = t % kStages;
        cpAsyncWait<0>();
        __syncthreads();  // tile t visible; every warp done with tile t - 1's stage
        if (t == 0) {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int ks = 0; ks < kKS; ++ks)
                    ldmatrixX4(qf[mt][ks], sQ + (warp * 16 * MT + mt * 16 + (lane % 16)) * SR +
                                               ks * 16 + (lane / 16) * 8);
        }
        if (t + 1 < tiles) loadK(t + 1, (t + 1) % kStages);
        cpAsyncCommit();
        const int j0 = tileStart(t);
        const bool live =
            warpRow0 < n && j0 <= warpRowLast && (window <= 0 || j0 + BN - 1 > warpRow0 - window);
        if (live) {
            const T* tK = sK + stage * BN * SR;
            const float* tC = sC + stage * BN;
            float s[MT][kNT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int i = 0; i < kNT; ++i)
                    s[mt][i][0] = s[mt][i][1] = s[mt][i][2] = s[mt][i][3] = 0.f;
#pragma unroll
            for (int ks = 0; ks < kKS; ++ks)
#pragma unroll
                for (int nt = 0; nt < kNT; nt += 2) {
                    const int mi = lane / 8, r = lane % 8;
                    uint32_t b[4];
                    ldmatrixX4(b, tK + (nt * 8 + (mi / 2) * 8 + r) * SR + ks * 16 + (mi % 2) * 8);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt) {
                        mma16816<T>(s[mt][nt], qf[mt][ks], b[0], b[1]);
                        mma16816<T>(s[mt][nt + 1], qf[mt][ks], b[2], b[3]);
                    }
                }
            const bool mask =
                j0 + BN - 1 > warpRow0 || (window > 0 && j0 < warpRowLast - window + 1);
            // exponent = scale q.k log2e + (c_i - c_j - lse_i) log2e, split as a row part and a
            // column part around the anchor A = c of the tile's first key: both parts stay small
            // wherever the weight is not negligible (|c_i - A| grows with the distance to the
            // tile, and the weight decays as fast), so c's large magnitude at long N never
            // enters a sum, and each value costs one add and one FMA before the exp.
            const float anchor = tC[0];
            float rowPart[MT][2];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    rowPart[mt][h] = fmaf(cRow[mt][h] - anchor, kLog2e, base[mt][h]);
            const float scaleLog2 = p.scale * kLog2e;
            // Two instances: the index tests of the mask would otherwise run for every value
            // (if-converted), and integer work, not the exp, bounded the kernel.
            auto pool = [&](auto masked) {
#pragma unroll
                for (int nt = 0; nt < kNT; ++nt) {
                    const float2 cj = *reinterpret_cast<const float2*>(tC + nt * 8 + 2 * tq);
                    const float colPart[2] = {(anchor - cj.x) * kLog2e, (anchor - cj.y) * kLog2e};
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            const int h = e / 2;
                            float v = fastExp2(
                                fmaf(s[mt][nt][e], scaleLog2, rowPart[mt][h] + colPart[e & 1]));
                            if constexpr (decltype(masked)::value) {
                                const int j = j0 + nt * 8 + 2 * tq + (e & 1);
                                const int i = warpRow0 + mt * 16 + h * 8 + g;
                                v = j <= i && (window <= 0 || j > i - window) ? v : 0.f;
                            }
                            const int cell = (kCells == Cells::C16 ? mt * kColCells : 0) +
                                             (kCells == Cells::Wide ? 0 : nt / (8 / kColCells));
                            poolSum[cell] += v;
                            poolMax[cell] = fmaxf(poolMax[cell], v);
                        }
                }
            };
            if (mask)
                pool(std::true_type{});
            else
                pool(std::false_type{});
            if constexpr (kCells != Cells::Wide) {
                // The warp owns whole cells: reduce them and store.
                const float total = reduceScatter<kPartials, 16>(poolSum, Sum{}, lane);
                const float most = reduceScatter<kPartials, 16>(poolMax, Max{}, lane);
                constexpr int kShift = kCells == Cells::C16 ? 2 : 4;  // lane -> cell index
                if ((lane & ((1 << kShift) - 1)) == 0) {
                    const int cell = lane >> kShift;
                    const int rowCell = cell / kColCells, colCell = cell % kColCells;
                    const int64_t r = (warpRow0 + rowCell * 16) >> level;
                    const int64_t cc = (j0 >> level) + colCell;
                    if (r < side && cc < side) {
                        cellMean[r * side + cc] = __fdividef(total, cellArea(r, cc, level, n));
                        cellMax[r * side + cc] = most;
                    }
                }
#pragma unroll
                for (int x = 0; x < kPartials; ++x)
                    poolSum[x] = poolMax[x] = 0.f;
            }
        }
        if constexpr (kCells == Cells::Wide) {
            // The CTA-uniform end of a cell column: the warps of each row cell meet in shared
            // memory. (Warps that were not live carry zeros.)
            const bool lastOfColumn =
                t + 1 == tiles || (tileStart(t + 1) >> level) != (j0 >> level);
            if (lastOfColumn) {
                const float total = reduceScatter<1, 16>(poolSum, Sum{}, lane);
                const float most = reduceScatter<1, 16>(poolMax, Max{}, lane);
                poolSum[0] = poolMax[0] = 0.f;
                if (lane == 0) {
                    sRed[2 * warp] = total;
                    sRed[2 * warp + 1] = most;
                }
                __syncthreads();
                const int group = min((1 << level) / (16 * MT), kWarps);  // warps per row cell
                if (threadIdx.x < kWarps / group) {
                    double s = 0.0;
                    float m = 0.f;
                    for (int w = threadIdx.x * group; w < (threadIdx.x + 1) * group; ++w) {
                        s += sRed[2 * w];
                        m = fmaxf(m, sRed[2 * w + 1]);
                    }
                    const int64_t r = (i0 + threadIdx.x * group * 16 * MT) >> level;
                    const int64_t cc = j0 >> level;
                    if (r < side && cc < side) {
                        const float cellTotal = static_cast<float>(s) / cellArea(r, cc, level, n);
                        if ((1 << level) <= kBlockM) {  // the CTA holds all of the cell's rows
                            cellMean[r * side + cc] = cellTotal;
                            cellMax[r * side + cc] = m;
                        } else {
                            atomicAdd(cellMean + r * side + cc, cellTotal);
                            // Values are >= 0, so integer order is float order.
                            atomicMax(reinterpret_cast<int*>(cellMax + r * side + cc),
                                      __float_as_int(m));
                        }
                    }
                }
            }
        }
    }
    cpAsyncWait<0>();
}

template <class T, int D, Cells kCells>
std::string launch(const AttentionPyramidParams& params, int heads, cudaStream_t stream) {
    constexpr size_t smem = smemBytes<D>();
    auto kernel = attentionPyramid<T, D, kCells>;
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, kernel);
    if (error != cudaSuccess) return cudaMessage(error, "attentionPyramid attributes");
    if (attributes.ptxVersion < 80) return {"sm80"};
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return cudaMessage(error, "attentionPyramid smem attribute");
    const int64_t blocks = (params.n + kBlockM - 1) / kBlockM;
    if (blocks * heads > int64_t{0x7fffffff}) return "buildPyramid: heads x n too large";
    kernel<<<static_cast<unsigned>(blocks * heads), kThreads, smem, stream>>>(params);
    return lastLaunchError("attentionPyramid launch");
}

template <class T, int D>
std::string launchCells(const AttentionPyramidParams& params, int heads, cudaStream_t stream) {
    if (params.level == 4) return launch<T, D, Cells::C16>(params, heads, stream);
    if (params.level == 5) return launch<T, D, Cells::C32>(params, heads, stream);
    return launch<T, D, Cells::Wide>(params, heads, stream);
}

bool aligned16(const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
}

}  // namespace

bool attentionPyramidMmaFits(const AttentionPyramidParams& p, int d, DType dtype) {
    if (dtype == DType::F32 || (d != 64 && d != 128)) return false;
    if (p.level < kMinMmaPyramidLevel || p.level > 30 || p.n > (int64_t{1} << 30)) return false;
    for (int64_t stride : {p.qRow, p.kRow, p.qHead, p.kHead})
        if (stride % 8 != 0) return false;
    return aligned16(p.q) && aligned16(p.k);
}

std::string launchAttentionPyramidMma(const AttentionPyramidParams& params, int heads, int d,
                                      DType dtype, cudaStream_t stream) {
    auto go = [&](auto tag) -> std::string {
        using T = decltype(tag);
        return d == 64 ? launchCells<T, 64>(params, heads, stream)
                       : launchCells<T, 128>(params, heads, stream);
    };
    return dtype == DType::F16 ? go(__half{}) : go(__nv_bfloat16{});
}

}  // namespace gatescope::kernels::cuda::detail
