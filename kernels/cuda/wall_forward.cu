// Wall Attention forward on the GPU (API and contract: wall_power_cuda.h). One CTA per 64 query
// rows of a head (row_block.cuh), key tiles visited from the diagonal backwards:
//  - the diagonal tile (keys = the block's own rows) sums q k exp(P_i - P_j) pair by pair, every
//    factor <= 1 (the CPU's direct path);
//  - then q is rescaled once in shared memory, q~ = q exp(P_i - R) with R = P of the block's first
//    row, and each earlier tile is a plain dot product with k~ = k exp(R - P_j): j < i0 <= i, so
//    both exponents are <= 0 and nothing overflows at any length (the per-tile anchor of the
//    official kernel, spec §1.4).
// fp32 arithmetic throughout; probabilities optionally rounded to bf16 before P.V.
#include <string>

#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/row_block.cuh"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::kernels::cuda {
namespace {

using namespace detail;

struct WallParams {
    RowBlockParams base;
    const float* p;  // P of gate head 0
    int64_t pHead, pRow;
    int gated;
};

template <class T, int VG>
__global__ void __launch_bounds__(kRbThreads, VG <= 2 ? 2 : 1) wallForwardKernel(WallParams wp) {
    const RowBlockParams& p = wp.base;
    extern __shared__ float4 smem4[];
    float* smem = reinterpret_cast<float*>(smem4);
    const int dk = p.dk, dg = wp.gated;
    const int kRegion = dk * kRbKeys > kRbRows * kRbPLd ? dk * kRbKeys : kRbRows * kRbPLd;
    float* sQ = smem;               // [dk][64]: q, then q~
    float* sK = sQ + dk * kRbRows;  // [dk][64]: k or k~; the probability tile after the logits
    float* sP = sK;
    float* sV = sK + kRegion;  // [64][dvPad]: values; on the diagonal first P^T [dg][64]
    const int vCols = p.dvPad > dg ? p.dvPad : dg;
    float* sR = sV + kRbKeys * vCols;  // [dg]: the anchor R

    const int head = blockIdx.x;
    const int64_t qb = int64_t(gridDim.y) - 1 - blockIdx.y;  // latest (costliest) blocks first
    const int64_t i0 = qb * kRbRows, n = p.n;
    const int kv = head / p.kvGroup;
    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + kv * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kv * p.vHead;
    const float* P = dg ? wp.p + (head / p.gateGroup) * wp.pHead : nullptr;
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;

    RowState<VG> st;
    st.reset();
    float s[4][4];

    // Diagonal tile.
    loadRowsTransposed(sQ, q, p.qRow, i0, n, dk);
    loadRowsTransposed(sK, k, p.kRow, i0, n, dk);
    for (int idx = threadIdx.x; idx < dg * kRbRows; idx += kRbThreads) {
        // Rows past n repeat the last row: their factors stay <= 1 and finite.
        const int r = idx % kRbRows, c = idx / kRbRows;
        const int64_t row = i0 + r < n ? i0 + r : n - 1;
        sV[idx] = P[row * wp.pRow + c];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            s[r][c] = 0.f;
    for (int c = 0; c < dg; ++c) {
        const float4 x = *reinterpret_cast<const float4*>(sQ + c * kRbRows + 4 * ty);
        const float4 y = *reinterpret_cast<const float4*>(sK + c * kRbKeys + 4 * tx);
        const float4 pi = *reinterpret_cast<const float4*>(sV + c * kRbRows + 4 * ty);
        const float4 pj = *reinterpret_cast<const float4*>(sV + c * kRbRows + 4 * tx);
        const float xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
        const float pis[4] = {pi.x, pi.y, pi.z, pi.w}, pjs[4] = {pj.x, pj.y, pj.z, pj.w};
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int kk = 0; kk < 4; ++kk)  // pairs j > i are masked below; min keeps them finite
                s[r][kk] = fmaf(xs[r] * ys[kk], __expf(fminf(pis[r] - pjs[kk], 0.f)), s[r][kk]);
    }
    dotTile(sQ, sK, dg, dk, ty, tx, s);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int64_t i = i0 + 4 * ty + r, j = i0 + 4 * tx + c;
            s[r][c] = j <= i && i < n ? s[r][c] * p.scale : kRbNegInf;
        }
    __syncthreads();  // sK and P^T read by everyone
    for (int idx = threadIdx.x; idx < dg * kRbRows; idx += kRbThreads) {
        const int r = idx % kRbRows, c = idx / kRbRows;
        const float anchor = sV[c * kRbRows];
        sQ[idx] *= __expf(sV[idx] - anchor);
        if (r == 0) sR[c] = anchor;
    }
    __syncthreads();  // P^T no longer needed: the values take its place
    loadValues(sV, v, p.vRow, i0, n, p.dv, p.dvPad);
    softmaxStep(s, st, p.roundBf16, false, sP, ty, tx);
    __syncthreads();
    accumulateValues(sP, sV, p.dvPad, st, ty, tx);

    // Tiles strictly before the block: anchored, unmasked (every key j < i0 <= i, j < n).
    for (int64_t jb = qb - 1; jb >= 0; --jb) {
        const int64_t j0 = jb * kRbKeys;
        __syncthreads();  // the previous tile's P.V is done with sP (= sK) and sV
        for (int idx = threadIdx.x; idx < dk * kRbKeys; idx += kRbThreads) {
            const int r = idx % kRbKeys, c = idx / kRbKeys;
            const int64_t j = j0 + r;
            float x = toFloat(k[j * p.kRow + c]);
            if (c < dg) x *= __expf(sR[c] - P[j * wp.pRow + c]);
            sK[idx] = x;
        }
        loadValues(sV, v, p.vRow, j0, n, p.dv, p.dvPad);
        __syncthreads();
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                s[r][c] = 0.f;
        dotTile(sQ, sK, 0, dk, ty, tx, s);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                s[r][c] *= p.scale;
        __syncthreads();  // everyone is done with sK before sP overwrites it
        softmaxStep(s, st, p.roundBf16, false, sP, ty, tx);
        __syncthreads();
        accumulateValues(sP, sV, p.dvPad, st, ty, tx);
    }
    finishRows<T>(p, st, head, i0, 0.f, ty, tx);
}

template <class T, int VG>
std::string launch(const WallParams& wp, int heads, int64_t blocks, size_t smem,
                   cudaStream_t stream) {
    auto kernel = wallForwardKernel<T, VG>;
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return cudaMessage(error, "wallForward smem attribute");
    const dim3 grid(static_cast<unsigned>(heads), static_cast<unsigned>(blocks));
    kernel<<<grid, kRbThreads, smem, stream>>>(wp);
    return lastLaunchError("wallForward launch");
}

}  // namespace

std::string wallForward(const WallBatch& b, const ForwardOutputs& o, void* stream,
                        const GatedForwardOptions& options) {
    if (b.gatedChannels < 0 || b.gatedChannels > b.dk)
        return "wallForward: gatedChannels must be in [0, dk]";
    WallParams wp{};
    int64_t blocks = 0;
    std::string error = rowBlockSetup("wallForward", b, o, options, wp.base, blocks);
    if (!error.empty() || blocks == 0) return error;
    if (b.gatedChannels > 0 && !b.logDecayCumsum)
        return "wallForward: gatedChannels > 0 needs logDecayCumsum";
    if (std::string result; detail::tryWallTensorCores(b, o, options, asStream(stream), result))
        return result;
    const RowBlockParams& p = wp.base;
    wp.p = b.logDecayCumsum;
    wp.gated = b.gatedChannels;
    wp.pRow = rowStrideOr(b.pRowStride, b.gatedChannels);
    wp.pHead = rowStrideOr(b.pHeadStride, b.n * wp.pRow);

    const size_t smem =
        sizeof(float) * rowBlockSmemFloats(b.dk, p.dvPad, b.gatedChannels, b.gatedChannels);
    const cudaStream_t s = asStream(stream);
    return withElementType(b.dtype, [&](auto tag) -> std::string {
        using T = decltype(tag);
        if (p.dvPad <= 64) return launch<T, 1>(wp, b.heads, blocks, smem, s);
        if (p.dvPad <= 128) return launch<T, 2>(wp, b.heads, blocks, smem, s);
        return launch<T, 4>(wp, b.heads, blocks, smem, s);
    });
}

}  // namespace gatescope::kernels::cuda
