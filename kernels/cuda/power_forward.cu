// Gated power attention forward on the GPU, the attention form (API and contract:
// wall_power_cuda.h; CPU reference kernels/cpu/power_attention.cpp). One CTA per 64 query rows
// of a head (row_block.cuh), key tiles from the diagonal backwards, logits
// s = p log(|scale q.k| + eps) + G_i - G_j in fp32, online max and rescaled sum as the package
// does in log space, l + kPowerRowSumEps at the end. bf16 batches with rounded probabilities and
// dk == dv in {64, 128} take the wgmma kernel's power instances on sm_90a instead (tensor cores;
// attention_forward_wgmma.cu).
#include <string>

#include "kernels/cpu/power_attention.h"
#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/row_block.cuh"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::kernels::cuda {
namespace {

using namespace detail;

struct PowerParams {
    RowBlockParams base;
    const float* g;  // G of gate head 0, or nullptr
    int64_t gHead;
    float degree, eps;
};

/// Turns the dot products of one tile into power logits; masks j > i and rows past n when
/// `diagonal`.
__device__ __forceinline__ void powerLogits(const PowerParams& pp, const float* G, int64_t i0,
                                            int64_t j0, bool diagonal, int ty, int tx,
                                            float (&s)[4][4]) {
    const RowBlockParams& p = pp.base;
    float gi[4] = {0.f, 0.f, 0.f, 0.f}, gj[4] = {0.f, 0.f, 0.f, 0.f};
    if (G) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int64_t i = i0 + 4 * ty + r, j = j0 + 4 * tx + r;
            gi[r] = i < p.n ? G[i] : 0.f;
            gj[r] = j < p.n ? G[j] : 0.f;
        }
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const float x = pp.degree * logf(fabsf(p.scale * s[r][c]) + pp.eps) + (gi[r] - gj[c]);
            const int64_t i = i0 + 4 * ty + r, j = j0 + 4 * tx + c;
            s[r][c] = !diagonal || (j <= i && i < p.n) ? x : kRbNegInf;
        }
}

template <class T, int VG>
__global__ void __launch_bounds__(kRbThreads, VG <= 2 ? 2 : 1) powerForwardKernel(PowerParams pp) {
    const RowBlockParams& p = pp.base;
    extern __shared__ float4 smem4[];
    float* smem = reinterpret_cast<float*>(smem4);
    const int dk = p.dk;
    const int kRegion = dk * kRbKeys > kRbRows * kRbPLd ? dk * kRbKeys : kRbRows * kRbPLd;
    float* sQ = smem;               // [dk][64]
    float* sK = sQ + dk * kRbRows;  // [dk][64]; the probability tile after the logits
    float* sP = sK;
    float* sV = sK + kRegion;  // [64][dvPad]

    const int head = blockIdx.x;
    const int64_t qb = int64_t(gridDim.y) - 1 - blockIdx.y;  // latest (costliest) blocks first
    const int64_t i0 = qb * kRbRows, n = p.n;
    const int kv = head / p.kvGroup;
    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + kv * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kv * p.vHead;
    const float* G = pp.g ? pp.g + (head / p.gateGroup) * pp.gHead : nullptr;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;

    RowState<VG> st;
    st.reset();
    float s[4][4];
    loadRowsTransposed(sQ, q, p.qRow, i0, n, dk);
    for (int64_t jb = qb; jb >= 0; --jb) {
        const int64_t j0 = jb * kRbKeys;
        __syncthreads();  // the previous tile's P.V is done with sP (= sK) and sV
        loadRowsTransposed(sK, k, p.kRow, j0, n, dk);
        loadValues(sV, v, p.vRow, j0, n, p.dv, p.dvPad);
        __syncthreads();
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                s[r][c] = 0.f;
        dotTile(sQ, sK, 0, dk, ty, tx, s);
        powerLogits(pp, G, i0, j0, jb == qb, ty, tx, s);
        __syncthreads();  // everyone is done with sK before sP overwrites it
        softmaxStep(s, st, p.roundBf16, true, sP, ty, tx);
        __syncthreads();
        accumulateValues(sP, sV, p.dvPad, st, ty, tx);
    }
    finishRows<T>(p, st, head, i0, static_cast<float>(kPowerRowSumEps), ty, tx);
}

template <class T, int VG>
std::string launch(const PowerParams& pp, int heads, int64_t blocks, size_t smem,
                   cudaStream_t stream) {
    auto kernel = powerForwardKernel<T, VG>;
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return cudaMessage(error, "powerForward smem attribute");
    const dim3 grid(static_cast<unsigned>(heads), static_cast<unsigned>(blocks));
    kernel<<<grid, kRbThreads, smem, stream>>>(pp);
    return lastLaunchError("powerForward launch");
}

/// The wgmma kernel's parameters for a batch its power instances take (bf16 operands whose
/// probabilities are rounded to bf16, dk == dv in {64, 128}, aligned as attentionForward's
/// tensor-core path needs), else false.
bool tensorCorePowerParams(const PowerBatch& b, const ForwardOutputs& o,
                           const GatedForwardOptions& options, FlashParams& p) {
    if (b.dtype != DType::BF16 || !options.roundProbsToBf16 || b.n > (int64_t{1} << 30) ||
        !hasSm90aCode())
        return false;
    AdditiveDecayBatch flash = additiveDecayShape(b);
    flash.logDecayCumsum = b.logDecayCumsum;
    flash.decayHeadStride = rowStrideOr(b.gHeadStride, b.n);
    p = flashParams(flash, o);
    if (!tensorCoreBatch(flash, p, ForwardConfig{}, o)) return false;
    p.cGroup = b.gateGroup;
    p.power = PowerScore{static_cast<float>(b.degree), b.scale, b.eps,
                         static_cast<float>(kPowerRowSumEps)};
    return true;
}

}  // namespace

std::string powerForward(const PowerBatch& b, const ForwardOutputs& o, void* stream,
                         const GatedForwardOptions& options) {
    if (b.degree <= 0 || b.degree % 2 != 0) return "powerForward: degree must be even and > 0";
    PowerParams pp{};
    int64_t blocks = 0;
    std::string error = rowBlockSetup("powerForward", b, o, options, pp.base, blocks);
    if (!error.empty() || blocks == 0) return error;
    const cudaStream_t s = asStream(stream);
    FlashParams flash;
    if (tensorCorePowerParams(b, o, options, flash))
        return launchWgmmaPower(flash, b.heads, b.dk, s);
    const RowBlockParams& p = pp.base;
    pp.g = b.logDecayCumsum;
    pp.gHead = rowStrideOr(b.gHeadStride, b.n);
    pp.degree = static_cast<float>(b.degree);
    pp.eps = b.eps;

    const size_t smem = sizeof(float) * rowBlockSmemFloats(b.dk, p.dvPad, 0, 0);
    return withElementType(b.dtype, [&](auto tag) -> std::string {
        using T = decltype(tag);
        if (p.dvPad <= 64) return launch<T, 1>(pp, b.heads, blocks, smem, s);
        if (p.dvPad <= 128) return launch<T, 2>(pp, b.heads, blocks, smem, s);
        return launch<T, 4>(pp, b.heads, blocks, smem, s);
    });
}

bool powerUsesTensorCores(const PowerBatch& batch, const ForwardOutputs& outputs,
                          const GatedForwardOptions& options) {
    FlashParams unused;
    return tensorCorePowerParams(batch, outputs, options, unused);
}

}  // namespace gatescope::kernels::cuda
