// Fused forward for the additive log-decay family. Two kernels:
//  - flashForward: FlashAttention-2 style, one CTA of 8 warps per 128 query rows, key/value
//    tiles of 64 rows double-buffered in shared memory through cp.async, Q.K^T and P.V on the
//    tensor cores (mma.sync m16n8k16, fp32 accumulation; runs on sm_80 and sm_90), the online
//    softmax in base 2 with the decay bias (c_i - c_j) added per tile. Head dims 64 and 128.
//  - fallbackForward: any dk, dv <= 256 and fp32 inputs; one warp per query row, fp32 all
//    through. Slow but simple, and the check for the fast path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda {
namespace {

using detail::asStream;
using detail::fromFloat;
using detail::lastLaunchError;
using detail::toFloat;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kNegInf = -INFINITY;

// ------------------------------------------------------------------------------------------------
// Tensor-core kernel
// ------------------------------------------------------------------------------------------------

// A CTA of W warps owns 16 W query rows (W = 8: one CTA per SM; W = 4: two per SM).
constexpr int kDefaultWarps = 8;
constexpr int kBlockN = 64;  // keys per tile

template <int D>
constexpr int smemRow() {
    return D + 8;  // 16-byte pad per row: ldmatrix rows land in distinct banks
}

template <int D, int W>
constexpr size_t flashSmemBytes() {
    return (size_t(16 * W) + 4 * kBlockN) * smemRow<D>() * 2 + 2 * kBlockN * sizeof(float);
}

struct FlashParams {
    const void* q;
    const void* k;
    const void* v;
    void* out;
    float* lse;
    const float* c;
    int64_t n, window;
    int64_t qHead, qRow, kHead, kRow, vHead, vRow, oHead, oRow, lseHead, cHead;
    int kvGroup;
    float scaleLog2;  // scale * log2(e)
};

// The tensor-core kernel needs sm_80 instructions (cp.async, ldmatrix, mma.sync bf16). When the
// build also targets older architectures, their device code traps instead, and the host side
// (launchFlash) sends such builds to the fallback kernel.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GATESCOPE_SM80_ASM(...) __trap()
#else
#define GATESCOPE_SM80_ASM(...) asm volatile(__VA_ARGS__)
#endif

__device__ __forceinline__ uint32_t smemAddress(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cpAsync16(void* dst, const void* src, bool valid) {
    GATESCOPE_SM80_ASM("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddress(dst)),
                       "l"(src), "r"(valid ? 16 : 0));
}

__device__ __forceinline__ void cpAsync4(void* dst, const void* src, bool valid) {
    GATESCOPE_SM80_ASM("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smemAddress(dst)),
                       "l"(src), "r"(valid ? 4 : 0));
}

__device__ __forceinline__ void cpAsyncCommit() {
    GATESCOPE_SM80_ASM("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    GATESCOPE_SM80_ASM("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                           const void* p) {
    GATESCOPE_SM80_ASM("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                       : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                       : "r"(smemAddress(p)));
}

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                                uint32_t& r3, const void* p) {
    GATESCOPE_SM80_ASM("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                       : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                       : "r"(smemAddress(p)));
}

template <class T>
__device__ __forceinline__ void mma16816(float* d, const uint32_t* a, uint32_t b0, uint32_t b1);

template <>
__device__ __forceinline__ void mma16816<__nv_bfloat16>(float* d, const uint32_t* a, uint32_t b0,
                                                        uint32_t b1) {
    GATESCOPE_SM80_ASM(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <>
__device__ __forceinline__ void mma16816<__half>(float* d, const uint32_t* a, uint32_t b0,
                                                 uint32_t b1) {
    GATESCOPE_SM80_ASM(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 2^x by the special-function unit (relative error about 2^-22; 2^-inf = 0).
__device__ __forceinline__ float fastExp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <class T>
__device__ __forceinline__ uint32_t packPair(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t packPair<__nv_bfloat16>(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}
template <>
__device__ __forceinline__ uint32_t packPair<__half>(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

// Copies rows [row0, row0 + rows) of a [n][D] head (row stride `stride`) into a padded shared
// tile; rows past n are zero-filled.
template <class T, int D, int Rows, int Threads>
__device__ __forceinline__ void loadTile(T* tile, const T* src, int64_t stride, int64_t row0,
                                         int64_t n) {
    constexpr int kChunks = D / 8;  // 16-byte chunks per row
    for (int idx = threadIdx.x; idx < Rows * kChunks; idx += Threads) {
        const int r = idx / kChunks, ch = idx % kChunks;
        const int64_t row = row0 + r;
        const bool valid = row < n;
        const T* from = valid ? src + row * stride + ch * 8 : src;
        cpAsync16(tile + r * smemRow<D>() + ch * 8, from, valid);
    }
}

template <class T, int D, bool Decay, int W>
__global__ void __launch_bounds__(32 * W, 8 / W) flashForward(FlashParams p) {
    constexpr int kBlockM = 16 * W;
    constexpr int kThreads = 32 * W;
    constexpr int SR = smemRow<D>();
    constexpr int kNT = kBlockN / 8;  // n-tiles of S per warp
    constexpr int kDT = D / 8;        // n-tiles of O per warp
    constexpr int kKS = D / 16;       // k-steps of Q.K^T
    extern __shared__ __align__(16) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + kBlockM * SR;                                    // 2 stages
    T* sV = sK + 2 * kBlockN * SR;                                // 2 stages
    float* sC = reinterpret_cast<float*>(sV + 2 * kBlockN * SR);  // 2 stages of c_j

    const int64_t n = p.n;
    const int64_t blocks = (n + kBlockM - 1) / kBlockM;
    const int64_t qb = blocks - 1 - blockIdx.x;  // longest rows first
    const int head = blockIdx.y;
    const int kvHead = head / p.kvGroup;
    const int64_t i0 = qb * kBlockM;
    const int64_t iLast = min(i0 + kBlockM, n) - 1;

    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + kvHead * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kvHead * p.vHead;
    const float* c = Decay ? p.c + head * p.cHead : nullptr;

    const int64_t firstKey = p.window > 0 ? max(i0 - p.window + 1, int64_t{0}) : 0;
    const int64_t kStart = firstKey / kBlockN * kBlockN;
    const int tiles = static_cast<int>((iLast - kStart) / kBlockN + 1);

    auto loadKV = [&](int t, int stage) {
        const int64_t j0 = kStart + int64_t(t) * kBlockN;
        loadTile<T, D, kBlockN, kThreads>(sK + stage * kBlockN * SR, k, p.kRow, j0, n);
        loadTile<T, D, kBlockN, kThreads>(sV + stage * kBlockN * SR, v, p.vRow, j0, n);
        if (Decay && threadIdx.x < kBlockN) {
            const int64_t j = j0 + threadIdx.x;
            cpAsync4(sC + stage * kBlockN + threadIdx.x, j < n ? c + j : c, j < n);
        }
    };

    loadTile<T, D, kBlockM, kThreads>(sQ, q, p.qRow, i0, n);
    loadKV(0, 0);
    cpAsyncCommit();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const int64_t rowA = i0 + warp * 16 + g, rowB = rowA + 8;  // the two rows this thread holds
    float cA = 0.f, cB = 0.f;
    if (Decay) {
        cA = rowA < n ? c[rowA] : 0.f;
        cB = rowB < n ? c[rowB] : 0.f;
    }

    uint32_t qf[kKS][4];
    float acc[kDT][4];
#pragma unroll
    for (int i = 0; i < kDT; ++i)
        acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
    float mA = kNegInf, mB = kNegInf, lA = 0.f, lB = 0.f;

    for (int t = 0; t < tiles; ++t) {
        const int stage = t & 1;
        if (t + 1 < tiles) loadKV(t + 1, stage ^ 1);
        cpAsyncCommit();
        cpAsyncWait<1>();
        __syncthreads();
        if (t == 0) {
#pragma unroll
            for (int ks = 0; ks < kKS; ++ks) {
                const T* ptr = sQ + (warp * 16 + (lane % 16)) * SR + ks * 16 + (lane / 16) * 8;
                ldmatrixX4(qf[ks][0], qf[ks][1], qf[ks][2], qf[ks][3], ptr);
            }
        }
        const T* tK = sK + stage * kBlockN * SR;
        const T* tV = sV + stage * kBlockN * SR;
        const int64_t j0 = kStart + int64_t(t) * kBlockN;

        // S = Q K^T for this warp's 16 rows x 64 keys.
        float s[kNT][4];
#pragma unroll
        for (int i = 0; i < kNT; ++i)
            s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks) {
#pragma unroll
            for (int nt = 0; nt < kNT; nt += 2) {
                const int mi = lane / 8, r = lane % 8;
                const T* ptr = tK + (nt * 8 + (mi / 2) * 8 + r) * SR + ks * 16 + (mi % 2) * 8;
                uint32_t b0, b1, b2, b3;
                ldmatrixX4(b0, b1, b2, b3, ptr);
                mma16816<T>(s[nt], qf[ks], b0, b1);
                mma16816<T>(s[nt + 1], qf[ks], b2, b3);
            }
        }

        // Logits u in "raw" units (no decay: u = q.k; decay: u = scale q.k + (c_i - c_j), the
        // difference first as on the CPU, since c itself grows large at long N), masked; the
        // running max m is kept in the same units and p = 2^(u f - m f) with one FMA, where
        // f = scale log2(e) (no decay) or log2(e) (decay).
        const float f = Decay ? kLog2e : p.scaleLog2;
        const float scale = p.scaleLog2 * kLn2;
        const bool warpNeedsMask = j0 + kBlockN - 1 > i0 + warp * 16 || j0 + kBlockN > n ||
                                   (p.window > 0 && j0 < i0 + warp * 16 + 16 - p.window);
        float tileMaxA = kNegInf, tileMaxB = kNegInf;
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = nt * 8 + 2 * tq + (e & 1);
                float x = s[nt][e];
                if (Decay) x = fmaf(x, scale, (e < 2 ? cA : cB) - sC[stage * kBlockN + col]);
                if (warpNeedsMask) {
                    const int64_t j = j0 + col;
                    const int64_t i = e < 2 ? rowA : rowB;
                    const bool ok = j <= i && j < n && (p.window <= 0 || j > i - p.window);
                    x = ok ? x : kNegInf;
                }
                s[nt][e] = x;
                if (e < 2)
                    tileMaxA = fmaxf(tileMaxA, x);
                else
                    tileMaxB = fmaxf(tileMaxB, x);
            }
        }
#pragma unroll
        for (int off = 1; off < 4; off <<= 1) {
            tileMaxA = fmaxf(tileMaxA, __shfl_xor_sync(0xffffffffu, tileMaxA, off));
            tileMaxB = fmaxf(tileMaxB, __shfl_xor_sync(0xffffffffu, tileMaxB, off));
        }
        const float newA = fmaxf(mA, tileMaxA), newB = fmaxf(mB, tileMaxB);
        const float shiftA = newA == kNegInf ? 0.f : newA * f;
        const float shiftB = newB == kNegInf ? 0.f : newB * f;
        const float alphaA = fastExp2(fmaf(mA, f, -shiftA));
        const float alphaB = fastExp2(fmaf(mB, f, -shiftB));
        mA = newA;
        mB = newB;
        lA *= alphaA;
        lB *= alphaB;
#pragma unroll
        for (int dt = 0; dt < kDT; ++dt) {
            acc[dt][0] *= alphaA;
            acc[dt][1] *= alphaA;
            acc[dt][2] *= alphaB;
            acc[dt][3] *= alphaB;
        }
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
            s[nt][0] = fastExp2(fmaf(s[nt][0], f, -shiftA));
            s[nt][1] = fastExp2(fmaf(s[nt][1], f, -shiftA));
            s[nt][2] = fastExp2(fmaf(s[nt][2], f, -shiftB));
            s[nt][3] = fastExp2(fmaf(s[nt][3], f, -shiftB));
            lA += s[nt][0] + s[nt][1];
            lB += s[nt][2] + s[nt][3];
        }

        // O += P V: the S accumulators of n-tiles 2ks, 2ks+1 are the A fragment of k-step ks.
#pragma unroll
        for (int ks = 0; ks < kBlockN / 16; ++ks) {
            uint32_t a[4];
            a[0] = packPair<T>(s[2 * ks][0], s[2 * ks][1]);
            a[1] = packPair<T>(s[2 * ks][2], s[2 * ks][3]);
            a[2] = packPair<T>(s[2 * ks + 1][0], s[2 * ks + 1][1]);
            a[3] = packPair<T>(s[2 * ks + 1][2], s[2 * ks + 1][3]);
#pragma unroll
            for (int dt = 0; dt < kDT; dt += 2) {
                const int mi = lane / 8, r = lane % 8;
                const T* ptr = tV + (ks * 16 + (mi % 2) * 8 + r) * SR + dt * 8 + (mi / 2) * 8;
                uint32_t b0, b1, b2, b3;
                ldmatrixX4Trans(b0, b1, b2, b3, ptr);
                mma16816<T>(acc[dt], a, b0, b1);
                mma16816<T>(acc[dt + 1], a, b2, b3);
            }
        }
        __syncthreads();  // everyone is done with this stage before it is refilled
    }
    cpAsyncWait<0>();

#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
        lA += __shfl_xor_sync(0xffffffffu, lA, off);
        lB += __shfl_xor_sync(0xffffffffu, lB, off);
    }
    const float invA = lA > 0.f ? 1.f / lA : 0.f, invB = lB > 0.f ? 1.f / lB : 0.f;
    T* out = static_cast<T*>(p.out) + head * p.oHead;
#pragma unroll
    for (int dt = 0; dt < kDT; ++dt) {
        const int col = dt * 8 + 2 * tq;
        if (rowA < n)
            *reinterpret_cast<uint32_t*>(out + rowA * p.oRow + col) =
                packPair<T>(acc[dt][0] * invA, acc[dt][1] * invA);
        if (rowB < n)
            *reinterpret_cast<uint32_t*>(out + rowB * p.oRow + col) =
                packPair<T>(acc[dt][2] * invB, acc[dt][3] * invB);
    }
    if (p.lse && tq == 0) {
        const float f = Decay ? kLog2e : p.scaleLog2;
        if (rowA < n) p.lse[head * p.lseHead + rowA] = (mA * f + log2f(lA)) * kLn2;
        if (rowB < n) p.lse[head * p.lseHead + rowB] = (mB * f + log2f(lB)) * kLn2;
    }
}

template <class T, int D, bool Decay, int W>
std::string launchFlash(const FlashParams& params, int heads, cudaStream_t stream) {
    constexpr size_t smem = flashSmemBytes<D, W>();
    constexpr int kBlockM = 16 * W;
    auto kernel = flashForward<T, D, Decay, W>;
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, kernel);
    if (error != cudaSuccess) return detail::cudaMessage(error, "flashForward attributes");
    if (attributes.ptxVersion < 80) return {"sm80"};  // built for an older target only
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return detail::cudaMessage(error, "flashForward smem attribute");
    const dim3 grid(static_cast<unsigned>((params.n + kBlockM - 1) / kBlockM),
                    static_cast<unsigned>(heads));
    kernel<<<grid, 32 * W, smem, stream>>>(params);
    return lastLaunchError("flashForward launch");
}

// ------------------------------------------------------------------------------------------------
// Fallback kernel
// ------------------------------------------------------------------------------------------------

constexpr int kFbWarps = 8;  // query rows per CTA
constexpr int kFbKeys = 32;  // keys per shared tile
constexpr int kFbMaxDim = 256;

template <class T>
__global__ void __launch_bounds__(32 * kFbWarps) fallbackForward(FlashParams p, int dk, int dv) {
    extern __shared__ float fsm[];
    const int kLd = dk + 1;
    float* sK = fsm;                 // kFbKeys x (dk + 1)
    float* sV = sK + kFbKeys * kLd;  // kFbKeys x dv
    float* sQ = sV + kFbKeys * dv;   // kFbWarps x dk
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int head = blockIdx.y, kvHead = head / p.kvGroup;
    const int64_t n = p.n;
    const int64_t i0 = int64_t(blockIdx.x) * kFbWarps;
    const int64_t i = i0 + warp;
    const int64_t iLast = min(i0 + kFbWarps, n) - 1;
    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + kvHead * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kvHead * p.vHead;
    const float* c = p.c ? p.c + head * p.cHead : nullptr;

    for (int d = lane; d < dk; d += 32)
        sQ[warp * dk + d] = i < n ? toFloat(q[i * p.qRow + d]) : 0.f;
    const float ci = c && i < n ? c[i] : 0.f;
    const float scale = p.scaleLog2 / kLog2e;
    float m = kNegInf, l = 0.f;
    float acc[kFbMaxDim / 32];
#pragma unroll
    for (int x = 0; x < kFbMaxDim / 32; ++x)
        acc[x] = 0.f;

    const int64_t firstKey = p.window > 0 ? max(i0 - p.window + 1, int64_t{0}) : 0;
    for (int64_t j0 = firstKey; j0 <= iLast; j0 += kFbKeys) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < kFbKeys * dk; idx += blockDim.x) {
            const int r = idx / dk, d = idx % dk;
            sK[r * kLd + d] = j0 + r < n ? toFloat(k[(j0 + r) * p.kRow + d]) : 0.f;
        }
        for (int idx = threadIdx.x; idx < kFbKeys * dv; idx += blockDim.x) {
            const int r = idx / dv, d = idx % dv;
            sV[r * dv + d] = j0 + r < n ? toFloat(v[(j0 + r) * p.vRow + d]) : 0.f;
        }
        __syncthreads();
        const int64_t j = j0 + lane;
        float dot = 0.f;
        for (int d = 0; d < dk; ++d)
            dot = fmaf(sQ[warp * dk + d], sK[lane * kLd + d], dot);
        float x = dot * scale + (c && j < n ? ci - c[j] : 0.f);
        const bool ok = i < n && j < n && j <= i && (p.window <= 0 || j > i - p.window);
        x = ok ? x : kNegInf;
        float tileMax = x;
        for (int off = 16; off > 0; off >>= 1)
            tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, off));
        const float mNew = fmaxf(m, tileMax);
        const float shift = mNew == kNegInf ? 0.f : mNew;
        const float alpha = expf(m - shift);
        const float pj = expf(x - shift);
        float sum = pj;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        l = l * alpha + sum;
        m = mNew;
#pragma unroll
        for (int x2 = 0; x2 < kFbMaxDim / 32; ++x2)
            acc[x2] *= alpha;
        for (int r = 0; r < kFbKeys; ++r) {
            const float pr = __shfl_sync(0xffffffffu, pj, r);
#pragma unroll
            for (int x2 = 0; x2 < kFbMaxDim / 32; ++x2) {
                const int d = lane + 32 * x2;
                if (d < dv) acc[x2] = fmaf(pr, sV[r * dv + d], acc[x2]);
            }
        }
    }
    if (i >= n) return;
    T* out = static_cast<T*>(p.out) + head * p.oHead;
    const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
    for (int x2 = 0; x2 < kFbMaxDim / 32; ++x2) {
        const int d = lane + 32 * x2;
        if (d < dv) out[i * p.oRow + d] = fromFloat<T>(acc[x2] * inv);
    }
    if (p.lse && lane == 0) p.lse[head * p.lseHead + i] = m + logf(l);
}

template <class T>
std::string launchFallback(const FlashParams& params, int heads, int dk, int dv,
                           cudaStream_t stream) {
    const size_t smem =
        sizeof(float) * (size_t(kFbKeys) * (dk + 1) + size_t(kFbKeys) * dv + size_t(kFbWarps) * dk);
    auto kernel = fallbackForward<T>;
    cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return detail::cudaMessage(error, "fallbackForward smem attribute");
    const dim3 grid(static_cast<unsigned>((params.n + kFbWarps - 1) / kFbWarps),
                    static_cast<unsigned>(heads));
    kernel<<<grid, 32 * kFbWarps, smem, stream>>>(params, dk, dv);
    return lastLaunchError("fallbackForward launch");
}

bool aligned16(const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
}

}  // namespace

ForwardPath forwardPath(const AdditiveDecayBatch& b, const ForwardConfig& config) {
    if (config.forceFallback || b.dtype == DType::F32 || b.dk != b.dv ||
        (b.dk != 64 && b.dk != 128))
        return ForwardPath::Fallback;
    const int64_t qRow = b.qRowStride ? b.qRowStride : b.dk;
    const int64_t kRow = b.kRowStride ? b.kRowStride : b.dk;
    const int64_t vRow = b.vRowStride ? b.vRowStride : b.dv;
    for (int64_t stride : {qRow, kRow, vRow, b.qHeadStride, b.kHeadStride, b.vHeadStride})
        if (stride % 8 != 0) return ForwardPath::Fallback;
    if (!aligned16(b.q) || !aligned16(b.k) || !aligned16(b.v)) return ForwardPath::Fallback;
    return ForwardPath::TensorCore;
}

std::string attentionForward(const AdditiveDecayBatch& b, const ForwardOutputs& o, void* stream,
                             const ForwardConfig& config) {
    if (config.ctaWarps != 0 && config.ctaWarps != 4 && config.ctaWarps != 8)
        return "attentionForward: ctaWarps must be 0, 4 or 8";
    if (b.heads < 0 || b.n < 0 || b.dk < 1 || b.dv < 1 || b.kvGroup < 1)
        return "attentionForward: bad sizes (heads, n >= 0; dk, dv, kvGroup >= 1)";
    if (b.dk > kFbMaxDim || b.dv > kFbMaxDim)
        return "attentionForward: head dimensions above 256 are not supported";
    if (b.heads == 0 || b.n == 0) return {};
    if (!b.q || !b.k || !b.v || !o.out) return "attentionForward: null q, k, v or out";
    if (b.heads % b.kvGroup != 0) return "attentionForward: heads not a multiple of kvGroup";
    if (b.n > (int64_t{1} << 31)) return "attentionForward: n over 2^31";

    FlashParams p{};
    p.q = b.q;
    p.k = b.k;
    p.v = b.v;
    p.out = o.out;
    p.lse = o.lse;
    p.c = b.logDecayCumsum;
    p.n = b.n;
    p.window = b.window;
    p.qRow = b.qRowStride ? b.qRowStride : b.dk;
    p.kRow = b.kRowStride ? b.kRowStride : b.dk;
    p.vRow = b.vRowStride ? b.vRowStride : b.dv;
    p.oRow = o.outRowStride ? o.outRowStride : b.dv;
    p.qHead = b.qHeadStride ? b.qHeadStride : b.n * p.qRow;
    p.kHead = b.kHeadStride ? b.kHeadStride : b.n * p.kRow;
    p.vHead = b.vHeadStride ? b.vHeadStride : b.n * p.vRow;
    p.oHead = o.outHeadStride ? o.outHeadStride : b.n * p.oRow;
    p.lseHead = o.lseHeadStride ? o.lseHeadStride : b.n;
    p.cHead = b.decayHeadStride ? b.decayHeadStride : b.n;
    p.kvGroup = b.kvGroup;
    p.scaleLog2 = b.scale * kLog2e;
    const cudaStream_t s = asStream(stream);

    AdditiveDecayBatch strided = b;
    strided.qHeadStride = p.qHead;
    strided.kHeadStride = p.kHead;
    strided.vHeadStride = p.vHead;
    const bool fast = forwardPath(strided, config) == ForwardPath::TensorCore && p.oRow % 2 == 0 &&
                      p.oHead % 2 == 0 && reinterpret_cast<uintptr_t>(o.out) % 4 == 0;
    if (fast) {
        const bool decay = b.logDecayCumsum != nullptr;
        // Measured on an H200 (docs/benchmarks.md): 4-warp CTAs win at d = 64, 8 at d = 128.
        const int warps = config.ctaWarps ? config.ctaWarps : b.dk == 64 ? 4 : kDefaultWarps;
        auto byWarps = [&](auto tag, auto dim, auto dec) -> std::string {
            using T = decltype(tag);
            constexpr int D = decltype(dim)::value;
            constexpr bool Dec = decltype(dec)::value;
            return warps == 4 ? launchFlash<T, D, Dec, 4>(p, b.heads, s)
                              : launchFlash<T, D, Dec, 8>(p, b.heads, s);
        };
        auto go = [&](auto tag) -> std::string {
            using Yes = std::true_type;
            using No = std::false_type;
            if (b.dk == 64)
                return decay ? byWarps(tag, std::integral_constant<int, 64>{}, Yes{})
                             : byWarps(tag, std::integral_constant<int, 64>{}, No{});
            return decay ? byWarps(tag, std::integral_constant<int, 128>{}, Yes{})
                         : byWarps(tag, std::integral_constant<int, 128>{}, No{});
        };
        std::string result = b.dtype == DType::F16 ? go(__half{}) : go(__nv_bfloat16{});
        if (result != "sm80") return result;
    }
    return detail::withElementType(b.dtype, [&](auto tag) {
        return launchFallback<decltype(tag)>(p, b.heads, b.dk, b.dv, s);
    });
}

}  // namespace gatescope::kernels::cuda
