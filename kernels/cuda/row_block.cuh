// Private to kernels/cuda (wall_forward.cu, power_forward.cu): the pieces of a plain fp32 tiled
// forward. A CTA of 256 threads owns 64 query rows; each key tile of 64 keys is staged in shared
// memory (q and k transposed, [channel][row], so that a thread reads four rows or four keys with
// one 16-byte load), the 64 x 64 logits live in registers (thread (ty, tx) = (t / 16, t % 16)
// holds rows 4 ty.. 4 ty + 3 x keys 4 tx.. 4 tx + 3), the online softmax keeps the running max
// and sum per row across the 16 threads of a row, and P.V accumulates in registers (thread holds
// the same 4 rows x value columns 64 g + 4 tx.. + 3, g < VG).
#pragma once

#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::kernels::cuda::detail {

constexpr int kRbRows = 64;              // query rows per CTA
constexpr int kRbKeys = 64;              // keys per tile
constexpr int kRbThreads = 256;          // 16 x 16 threads
constexpr int kRbPLd = kRbKeys + 4;      // row stride of the probability tile (bank spread)
constexpr int kRbMaxDim = 256;           // head dimensions supported
constexpr int64_t kRbMaxBlocks = 65535;  // query blocks per head (grid y)
constexpr float kRbNegInf = -INFINITY;

/// Everything both families share: layout of q, k, v, out, lse (elements), sizes, GQA groups.
struct RowBlockParams {
    const void* q;
    const void* k;
    const void* v;
    void* out;
    float* lse;
    int64_t n;
    int dk, dv, dvPad;
    int kvGroup, gateGroup;
    int64_t qHead, qRow, kHead, kRow, vHead, vRow, oHead, oRow, lseHead;
    float scale;
    bool roundBf16;
};

/// Per-thread running state: 4 rows' max, sum and P.V accumulator.
template <int VG>
struct RowState {
    float m[4], l[4];
    float acc[4][VG][4];

    __device__ void reset() {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            m[r] = kRbNegInf;
            l[r] = 0.f;
#pragma unroll
            for (int g = 0; g < VG; ++g)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[r][g][e] = 0.f;
        }
    }
};

/// dst[c * 64 + r] = src row (row0 + r), channel c, for c < cols; rows at or past n read 0.
template <class T>
__device__ __forceinline__ void loadRowsTransposed(float* dst, const T* src, int64_t rowStride,
                                                   int64_t row0, int64_t n, int cols) {
    for (int idx = threadIdx.x; idx < cols * kRbRows; idx += kRbThreads) {
        const int r = idx % kRbRows, c = idx / kRbRows;
        const int64_t row = row0 + r;
        dst[idx] = row < n ? toFloat(src[row * rowStride + c]) : 0.f;
    }
}

/// dst[r * dvPad + c] = value row (row0 + r), channel c; 0 past dv (up to dvPad) and past n.
template <class T>
__device__ __forceinline__ void loadValues(float* dst, const T* src, int64_t rowStride,
                                           int64_t row0, int64_t n, int dv, int dvPad) {
    for (int idx = threadIdx.x; idx < kRbKeys * dvPad; idx += kRbThreads) {
        const int r = idx / dvPad, c = idx % dvPad;
        const int64_t row = row0 + r;
        dst[idx] = row < n && c < dv ? toFloat(src[row * rowStride + c]) : 0.f;
    }
}

/// s[r][c] += sum over channels [c0, c1) of a[c][4 ty + r] b[c][4 tx + c] (transposed tiles).
__device__ __forceinline__ void dotTile(const float* a, const float* b, int c0, int c1, int ty,
                                        int tx, float (&s)[4][4]) {
#pragma unroll 4
    for (int c = c0; c < c1; ++c) {
        const float4 x = *reinterpret_cast<const float4*>(a + c * kRbRows + 4 * ty);
        const float4 y = *reinterpret_cast<const float4*>(b + c * kRbKeys + 4 * tx);
        const float xs[4] = {x.x, x.y, x.z, x.w};
        const float ys[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int k = 0; k < 4; ++k)
                s[r][k] = fmaf(xs[r], ys[k], s[r][k]);
    }
}

__device__ __forceinline__ float roundToBf16(float x) {
    return __bfloat162float(__float2bfloat16_rn(x));
}

/// One online-softmax step on the logits s (-inf where masked): updates the running max and sum,
/// rescales the accumulator, and writes this thread's weights (rounded to bf16 when asked) into
/// the probability tile sP. `sumRounded`: the row sum adds the rounded weights (power) rather
/// than the exact ones (softmax families).
template <int VG>
__device__ __forceinline__ void softmaxStep(const float (&s)[4][4], RowState<VG>& st,
                                            bool roundBf16, bool sumRounded, float* sP, int ty,
                                            int tx) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        float mx = fmaxf(fmaxf(s[r][0], s[r][1]), fmaxf(s[r][2], s[r][3]));
#pragma unroll
        for (int off = 8; off > 0; off >>= 1)
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        const float mNew = fmaxf(st.m[r], mx);
        const float shift = mNew == kRbNegInf ? 0.f : mNew;
        const float alpha = __expf(st.m[r] - shift);
        float p[4], sum = 0.f;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const float w = __expf(s[r][k] - shift);
            p[k] = roundBf16 ? roundToBf16(w) : w;
            sum += sumRounded ? p[k] : w;
        }
#pragma unroll
        for (int off = 8; off > 0; off >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        st.l[r] = st.l[r] * alpha + sum;
        st.m[r] = mNew;
#pragma unroll
        for (int g = 0; g < VG; ++g)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                st.acc[r][g][e] *= alpha;
        *reinterpret_cast<float4*>(sP + (4 * ty + r) * kRbPLd + 4 * tx) =
            make_float4(p[0], p[1], p[2], p[3]);
    }
}

/// acc += P V over the 64 keys of the tile (sP: 64 x kRbPLd, sV: 64 x dvPad).
template <int VG>
__device__ __forceinline__ void accumulateValues(const float* sP, const float* sV, int dvPad,
                                                 RowState<VG>& st, int ty, int tx) {
#pragma unroll 2
    for (int j = 0; j < kRbKeys; j += 4) {
        float p[4][4];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const float4 x = *reinterpret_cast<const float4*>(sP + (4 * ty + r) * kRbPLd + j);
            p[r][0] = x.x;
            p[r][1] = x.y;
            p[r][2] = x.z;
            p[r][3] = x.w;
        }
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
            for (int g = 0; g < VG; ++g) {
                const int col = 64 * g + 4 * tx;
                if (col >= dvPad) continue;
                const float4 v = *reinterpret_cast<const float4*>(sV + (j + jj) * dvPad + col);
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    st.acc[r][g][0] = fmaf(p[r][jj], v.x, st.acc[r][g][0]);
                    st.acc[r][g][1] = fmaf(p[r][jj], v.y, st.acc[r][g][1]);
                    st.acc[r][g][2] = fmaf(p[r][jj], v.z, st.acc[r][g][2]);
                    st.acc[r][g][3] = fmaf(p[r][jj], v.w, st.acc[r][g][3]);
                }
            }
        }
    }
}

/// Writes out = acc / (l + lEps) and lse = m + log(l + lEps) for the rows below n.
template <class T, int VG>
__device__ __forceinline__ void finishRows(const RowBlockParams& p, const RowState<VG>& st,
                                           int head, int64_t i0, float lEps, int ty, int tx) {
    T* out = static_cast<T*>(p.out) + head * p.oHead;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        const int64_t i = i0 + 4 * ty + r;
        if (i >= p.n) continue;
        const float l = st.l[r] + lEps;
        const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
        for (int g = 0; g < VG; ++g)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = 64 * g + 4 * tx + e;
                if (col < p.dv) out[i * p.oRow + col] = fromFloat<T>(st.acc[r][g][e] * inv);
            }
        if (p.lse && tx == 0) p.lse[head * p.lseHead + i] = st.m[r] + logf(l);
    }
}

/// Shared memory of one CTA (floats): sQ [dk][64], sK [max(dk, 68)][64] (the probability tile
/// reuses it once the logits are in registers), sV [64][max(dvPad, extra)], then `tail` floats.
inline size_t rowBlockSmemFloats(int dk, int dvPad, int vExtra, int tail) {
    const int kRegion = dk * kRbKeys > kRbRows * kRbPLd ? dk * kRbKeys : kRbRows * kRbPLd;
    const int vCols = dvPad > vExtra ? dvPad : vExtra;
    return size_t(dk) * kRbRows + size_t(kRegion) + size_t(kRbKeys) * vCols + size_t(tail);
}

inline int64_t rowStrideOr(int64_t stride, int64_t fallback) {
    return stride ? stride : fallback;
}

/// The checks wallForward and powerForward share, then `p` filled from the batch (strides
/// resolved). Returns "" or the error prefixed with `who`; `blocks` receives the number of
/// 64-row query blocks, 0 when the batch is empty (nothing to launch).
inline std::string rowBlockSetup(const char* who, const GatedHeads& b, const ForwardOutputs& o,
                                 const GatedForwardOptions& options, RowBlockParams& p,
                                 int64_t& blocks) {
    const std::string name(who);
    blocks = 0;
    if (b.heads < 0 || b.n < 0 || b.dk < 1 || b.dv < 1 || b.kvGroup < 1 || b.gateGroup < 1)
        return name + ": bad sizes (heads, n >= 0; dk, dv, kvGroup, gateGroup >= 1)";
    if (b.dk > kRbMaxDim || b.dv > kRbMaxDim)
        return name + ": head dimensions above 256 are not supported";
    if (b.heads == 0 || b.n == 0) return {};
    if (!b.q || !b.k || !b.v || !o.out) return name + ": null q, k, v or out";
    if (b.heads % b.kvGroup != 0 || b.heads % b.gateGroup != 0)
        return name + ": heads not a multiple of kvGroup or gateGroup";
    const int64_t count = (b.n + kRbRows - 1) / kRbRows;
    if (count > kRbMaxBlocks) return name + ": n over 64 x 65535";

    p = RowBlockParams{};
    p.q = b.q;
    p.k = b.k;
    p.v = b.v;
    p.out = o.out;
    p.lse = o.lse;
    p.n = b.n;
    p.dk = b.dk;
    p.dv = b.dv;
    p.dvPad = (b.dv + 3) / 4 * 4;
    p.kvGroup = b.kvGroup;
    p.gateGroup = b.gateGroup;
    p.qRow = rowStrideOr(b.qRowStride, b.dk);
    p.kRow = rowStrideOr(b.kRowStride, b.dk);
    p.vRow = rowStrideOr(b.vRowStride, b.dv);
    p.oRow = rowStrideOr(o.outRowStride, b.dv);
    p.qHead = rowStrideOr(b.qHeadStride, b.n * p.qRow);
    p.kHead = rowStrideOr(b.kHeadStride, b.n * p.kRow);
    p.vHead = rowStrideOr(b.vHeadStride, b.n * p.vRow);
    p.oHead = rowStrideOr(o.outHeadStride, b.n * p.oRow);
    p.lseHead = rowStrideOr(o.lseHeadStride, b.n);
    p.scale = b.scale;
    p.roundBf16 = options.roundProbsToBf16;
    blocks = count;
    return {};
}

}  // namespace gatescope::kernels::cuda::detail
