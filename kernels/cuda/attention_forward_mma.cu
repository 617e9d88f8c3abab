// Tensor-core forward of the additive log-decay family (FlashAttention-2's structure on
// mma.sync, which runs on sm_80 and sm_90): a CTA of W warps owns W x 16 MT query rows (each warp
// MT m16 tiles, so every K/V fragment read from shared memory feeds MT MMAs); key/value tiles of
// BN rows are double-buffered in shared memory through cp.async; S = Q K^T and O += P V on the
// tensor cores with fp32 accumulation; the online softmax runs in base 2 with the decay bias
// (c_i - c_j) added per tile. Head dims 64 and 128.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/mma_sm80.cuh"
#include "kernels/cuda/smem_tile.cuh"

namespace gatescope::kernels::cuda::detail {
namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kNegInf = -INFINITY;
constexpr float kLazyRescale = 8.f;  // log2 units: probabilities up to 2^8 before a rescale

// The CTA shape (measured on an H100 against 32-key tiles, Q held in registers, 8-warp CTAs
// and a 3-stage ring; docs/benchmarks.md): 4 warps of 2 m16 tiles (128 query rows), 64-key
// tiles, a 2-stage K/V ring, Q fragments re-read from shared memory per tile (holding them would
// take 64 more registers at d = 128). 255 registers and 2 CTAs per SM, as FlashAttention-2.
constexpr int kWarps = 4;
constexpr int kMTiles = 2;  // m16 tiles per warp
constexpr int kBlockM = 16 * kMTiles * kWarps;
constexpr int kBlockN = 64;
constexpr int kStages = 2;
constexpr int kThreads = 32 * kWarps;

template <int D>
constexpr size_t smemBytes() {
    return (size_t(kBlockM) + 2 * kStages * kBlockN) * smemRow<D>() * 2 +
           kStages * kBlockN * sizeof(float);
}

template <class T, int D, bool Decay>
__global__ void __launch_bounds__(kThreads, 2) mmaForward(FlashParams p) {
    constexpr int MT = kMTiles, BN = kBlockN;
    constexpr int kRowsPerWarp = 16 * MT;
    constexpr int SR = smemRow<D>();
    constexpr int kNT = BN / 8;  // n-tiles of S per m-tile
    constexpr int kDT = D / 8;   // n-tiles of O per m-tile
    constexpr int kKS = D / 16;  // k-steps of Q.K^T
    extern __shared__ __align__(16) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + kBlockM * SR;
    T* sV = sK + kStages * BN * SR;
    float* sC = reinterpret_cast<float*>(sV + kStages * BN * SR);  // c_j of each stage

    // Heads vary fastest and query blocks run longest first across all heads, so the short
    // blocks of every head fill the tail of the grid.
    // Token indices fit in int (attentionForward checks n <= 2^30); offsets are int64.
    const int n = static_cast<int>(p.n);
    const int window = p.window >= n ? 0 : static_cast<int>(p.window);
    const int blocks = (n + kBlockM - 1) / kBlockM;
    const int heads = static_cast<int>(gridDim.x / blocks);
    const int head = static_cast<int>(blockIdx.x % heads);
    const int qb = blocks - 1 - static_cast<int>(blockIdx.x / heads);
    const int kvHead = head / p.kvGroup;
    const int i0 = qb * kBlockM;
    const int iLast = min(i0 + kBlockM, n) - 1;

    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + kvHead * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kvHead * p.vHead;
    const float* c = Decay ? p.c + (head / p.cGroup) * p.cHead : nullptr;

    const int firstKey = window > 0 ? max(i0 - window + 1, 0) : 0;
    const int kStart = firstKey / BN * BN;
    const int tiles = (iLast - kStart) / BN + 1;

    // Tiles run from the diagonal backwards (t = 0 is the last tile): the largest logits, those
    // of the nearest keys under a decay, come first, so the running max rarely moves afterwards.
    auto tileStart = [&](int t) { return kStart + (tiles - 1 - t) * BN; };
    auto loadKV = [&](int t, int stage) {
        const int j0 = tileStart(t);
        loadTile<T, D, BN, kThreads>(sK + stage * BN * SR, k, p.kRow, j0, n);
        loadTile<T, D, BN, kThreads>(sV + stage * BN * SR, v, p.vRow, j0, n);
        if (Decay && threadIdx.x < BN) {
            const int j = j0 + threadIdx.x;
            cpAsync4(sC + stage * BN + threadIdx.x, j < n ? c + j : c, j < n);
        }
    };

    // One commit group per tile (empty past the last), so "all but the newest Stages - 2 groups
    // done" always means "tile t has landed".
    loadTile<T, D, kBlockM, kThreads>(sQ, q, p.qRow, i0, n);
#pragma unroll
    for (int st = 0; st < kStages - 1; ++st) {
        if (st < tiles) loadKV(st, st);
        cpAsyncCommit();
    }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const int warpRow0 = i0 + warp * kRowsPerWarp;
    const int warpRowLast = min(warpRow0 + kRowsPerWarp, n) - 1;
    // Thread rows: m-tile mt, half h (h = 0: row g of the tile, h = 1: row g + 8).
    // Row of (mt, h): warpRow0 + mt * 16 + h * 8 + g (recomputed where needed: registers are
    // the scarce resource of this kernel).
    float cRow[MT][2], m[MT][2], l[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = warpRow0 + mt * 16 + h * 8 + g;
            cRow[mt][h] = Decay && i < n ? c[i] : 0.f;
            m[mt][h] = kNegInf;
            l[mt][h] = 0.f;
        }

    float acc[MT][kDT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int i = 0; i < kDT; ++i)
            acc[mt][i][0] = acc[mt][i][1] = acc[mt][i][2] = acc[mt][i][3] = 0.f;

    const float f = Decay ? kLog2e : p.scaleLog2;
    const float scale = p.scaleLog2 * kLn2;
    const float lazyThreshold = kLazyRescale / f;  // in the logits' raw units
    const T* qWarp = sQ + (warp * kRowsPerWarp + (lane % 16)) * SR + (lane / 16) * 8;

    for (int t = 0; t < tiles; ++t) {
        const int stage = t % kStages;
        cpAsyncWait<kStages - 2>();
        // After this barrier tile t is visible to all and every warp is done with tile t - 1,
        // whose stage the next load reuses: one barrier per tile.
        __syncthreads();
        if (t + kStages - 1 < tiles) loadKV(t + kStages - 1, (t + kStages - 1) % kStages);
        cpAsyncCommit();
        const int j0 = tileStart(t);
        // A warp whose rows see none of this tile's keys (past the diagonal, or before the
        // window) skips it; it still takes part in the CTA's barriers.
        const bool live =
            warpRow0 < n && j0 <= warpRowLast && (window <= 0 || j0 + BN - 1 > warpRow0 - window);
        if (live) {
            const T* tK = sK + stage * BN * SR;
            const T* tV = sV + stage * BN * SR;
            const float* tC = sC + stage * BN;

            float s[MT][kNT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int i = 0; i < kNT; ++i)
                    s[mt][i][0] = s[mt][i][1] = s[mt][i][2] = s[mt][i][3] = 0.f;
#pragma unroll
            for (int ks = 0; ks < kKS; ++ks) {
                uint32_t a[MT][4];
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    ldmatrixX4(a[mt], qWarp + mt * 16 * SR + ks * 16);
                }
#pragma unroll
                for (int nt = 0; nt < kNT; nt += 2) {
                    const int mi = lane / 8, r = lane % 8;
                    uint32_t b[4];
                    ldmatrixX4(b, tK + (nt * 8 + (mi / 2) * 8 + r) * SR + ks * 16 + (mi % 2) * 8);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt) {
                        mma16816<T>(s[mt][nt], a[mt], b[0], b[1]);
                        mma16816<T>(s[mt][nt + 1], a[mt], b[2], b[3]);
                    }
                }
            }

            // Logits u in "raw" units (no decay: u = q.k; decay: u = scale q.k + (c_i - c_j),
            // the difference first as on the CPU, since c itself grows large at long N), masked;
            // the running max m is kept in the same units and p = 2^(u f - m f) with one FMA.
            // (Keys past n only occur in tiles that also cross the diagonal of every live row.)
            const bool mask =
                j0 + BN - 1 > warpRow0 || (window > 0 && j0 < warpRowLast - window + 1);
            float cCol[kNT][2];  // c_j of this thread's columns
#pragma unroll
            for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                for (int e = 0; e < 2; ++e)
                    cCol[nt][e] = Decay ? tC[nt * 8 + 2 * tq + e] : 0.f;
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                float tileMax[2] = {kNegInf, kNegInf};
#pragma unroll
                for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int col = nt * 8 + 2 * tq + (e & 1), h = e / 2;
                        float x = s[mt][nt][e];
                        if (Decay) x = fmaf(x, scale, cRow[mt][h] - cCol[nt][e & 1]);
                        if (mask) {
                            const int j = j0 + col, i = warpRow0 + mt * 16 + h * 8 + g;
                            const bool ok = j <= i && (window <= 0 || j > i - window);
                            x = ok ? x : kNegInf;
                        }
                        s[mt][nt][e] = x;
                        tileMax[h] = fmaxf(tileMax[h], x);
                    }
                // The running max moves (and l and the accumulators are rescaled) only when a
                // row's tile max exceeds it by more than kLazyRescale in log2 units; otherwise
                // p = 2^(u f - m f) <= 2^kLazyRescale with the stale m, which fp32 accumulation
                // and bf16 probabilities carry as exactly, and lse = m f + log2 l stays exact.
                bool grow = false;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
#pragma unroll
                    for (int off = 1; off < 4; off <<= 1)
                        tileMax[h] =
                            fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], off));
                    grow = grow || tileMax[h] > m[mt][h] + lazyThreshold;
                }
                if (__any_sync(0xffffffffu, grow)) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const float mNew = fmaxf(m[mt][h], tileMax[h]);
                        const float alpha = mNew == kNegInf ? 1.f : fastExp2((m[mt][h] - mNew) * f);
                        m[mt][h] = mNew;
                        l[mt][h] *= alpha;
#pragma unroll
                        for (int dt = 0; dt < kDT; ++dt) {
                            acc[mt][dt][2 * h] *= alpha;
                            acc[mt][dt][2 * h + 1] *= alpha;
                        }
                    }
                }
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const float shift = m[mt][h] == kNegInf ? 0.f : m[mt][h] * f;
#pragma unroll
                    for (int nt = 0; nt < kNT; ++nt) {
                        const float p0 = fastExp2(fmaf(s[mt][nt][2 * h], f, -shift));
                        const float p1 = fastExp2(fmaf(s[mt][nt][2 * h + 1], f, -shift));
                        s[mt][nt][2 * h] = p0;
                        s[mt][nt][2 * h + 1] = p1;
                        l[mt][h] += p0 + p1;
                    }
                }
            }

            // O += P V: the S accumulators of n-tiles 2ks, 2ks+1 are the A fragment of k-step ks.
#pragma unroll
            for (int ks = 0; ks < BN / 16; ++ks) {
                uint32_t a[MT][4];
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    a[mt][0] = packPair<T>(s[mt][2 * ks][0], s[mt][2 * ks][1]);
                    a[mt][1] = packPair<T>(s[mt][2 * ks][2], s[mt][2 * ks][3]);
                    a[mt][2] = packPair<T>(s[mt][2 * ks + 1][0], s[mt][2 * ks + 1][1]);
                    a[mt][3] = packPair<T>(s[mt][2 * ks + 1][2], s[mt][2 * ks + 1][3]);
                }
#pragma unroll
                for (int dt = 0; dt < kDT; dt += 2) {
                    const int mi = lane / 8, r = lane % 8;
                    uint32_t b[4];
                    ldmatrixX4Trans(b,
                                    tV + (ks * 16 + (mi % 2) * 8 + r) * SR + dt * 8 + (mi / 2) * 8);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt) {
                        mma16816<T>(acc[mt][dt], a[mt], b[0], b[1]);
                        mma16816<T>(acc[mt][dt + 1], a[mt], b[2], b[3]);
                    }
                }
            }
        }
    }
    cpAsyncWait<0>();

    T* out = static_cast<T*>(p.out) + head * p.oHead;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float sum = l[mt][h];
#pragma unroll
            for (int off = 1; off < 4; off <<= 1)
                sum += __shfl_xor_sync(0xffffffffu, sum, off);
            const int i = warpRow0 + mt * 16 + h * 8 + g;
            if (i >= n) continue;
            const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
            for (int dt = 0; dt < kDT; ++dt) {
                const int col = dt * 8 + 2 * tq;
                *reinterpret_cast<uint32_t*>(out + int64_t(i) * p.oRow + col) =
                    packPair<T>(acc[mt][dt][2 * h] * inv, acc[mt][dt][2 * h + 1] * inv);
            }
            if (p.lse && tq == 0) p.lse[head * p.lseHead + i] = (m[mt][h] * f + log2f(sum)) * kLn2;
        }
}

template <class T, int D, bool Decay>
std::string launch(const FlashParams& params, int heads, cudaStream_t stream) {
    constexpr size_t smem = smemBytes<D>();
    auto kernel = mmaForward<T, D, Decay>;
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, kernel);
    if (error != cudaSuccess) return cudaMessage(error, "mmaForward attributes");
    if (attributes.ptxVersion < 80) return {"sm80"};  // built for an older target only
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return cudaMessage(error, "mmaForward smem attribute");
    const int64_t blocks = (params.n + kBlockM - 1) / kBlockM;
    if (blocks * heads > int64_t{0x7fffffff}) return "attentionForward: heads x n too large";
    kernel<<<static_cast<unsigned>(blocks * heads), kThreads, smem, stream>>>(params);
    return lastLaunchError("mmaForward launch");
}

}  // namespace

std::string launchTensorCore(const FlashParams& params, int heads, int d, DType dtype,
                             cudaStream_t stream) {
    const bool decay = params.c != nullptr;
    auto go = [&](auto tag) -> std::string {
        using T = decltype(tag);
        if (d == 64)
            return decay ? launch<T, 64, true>(params, heads, stream)
                         : launch<T, 64, false>(params, heads, stream);
        return decay ? launch<T, 128, true>(params, heads, stream)
                     : launch<T, 128, false>(params, heads, stream);
    };
    return dtype == DType::F16 ? go(__half{}) : go(__nv_bfloat16{});
}

}  // namespace gatescope::kernels::cuda::detail
