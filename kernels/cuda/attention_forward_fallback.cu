// Fallback forward of the additive log-decay family: any dk, dv <= 256, fp32/fp16/bf16 inputs,
// odd strides, and builds without sm_80 device code. One warp per query row, fp32 throughout:
// slow but simple, and the check for the tensor-core path.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"

namespace gatescope::kernels::cuda::detail {
namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kNegInf = -INFINITY;
constexpr int kFbWarps = 8;  // query rows per CTA
constexpr int kFbKeys = 32;  // keys per shared tile

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
    const float* c = p.c ? p.c + (head / p.cGroup) * p.cHead : nullptr;

    for (int d = lane; d < dk; d += 32)
        sQ[warp * dk + d] = i < n ? toFloat(q[i * p.qRow + d]) : 0.f;
    const float ci = c && i < n ? c[i] : 0.f;
    const float scale = p.scaleLog2 / kLog2e;
    float m = kNegInf, l = 0.f;
    float acc[kFallbackMaxDim / 32];
#pragma unroll
    for (int x = 0; x < kFallbackMaxDim / 32; ++x)
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
        for (int x2 = 0; x2 < kFallbackMaxDim / 32; ++x2)
            acc[x2] *= alpha;
        for (int r = 0; r < kFbKeys; ++r) {
            const float pr = __shfl_sync(0xffffffffu, pj, r);
#pragma unroll
            for (int x2 = 0; x2 < kFallbackMaxDim / 32; ++x2) {
                const int d = lane + 32 * x2;
                if (d < dv) acc[x2] = fmaf(pr, sV[r * dv + d], acc[x2]);
            }
        }
    }
    if (i >= n) return;
    T* out = static_cast<T*>(p.out) + head * p.oHead;
    const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
    for (int x2 = 0; x2 < kFallbackMaxDim / 32; ++x2) {
        const int d = lane + 32 * x2;
        if (d < dv) out[i * p.oRow + d] = fromFloat<T>(acc[x2] * inv);
    }
    if (p.lse && lane == 0) p.lse[head * p.lseHead + i] = m + logf(l);
}

template <class T>
std::string launchFallbackTyped(const FlashParams& params, int heads, int dk, int dv,
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

}  // namespace

std::string launchFallback(const FlashParams& params, int heads, int dk, int dv, DType dtype,
                           cudaStream_t stream) {
    return withElementType(dtype, [&](auto tag) {
        return launchFallbackTyped<decltype(tag)>(params, heads, dk, dv, stream);
    });
}

}  // namespace gatescope::kernels::cuda::detail
