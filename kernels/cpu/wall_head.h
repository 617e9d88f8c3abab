// The O(N) factors that define one Wall Attention head exactly (Tilde Research's diagonal gates
// inside softmax attention; ../shared/specs/wall-attention-and-kernels.md §1.3-1.4):
//   P[t,n] = sum_{tau <= t} g[tau,n]          natural-log cumulative gate of channel n (g <= 0)
//   s[i,j] = scale sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n])     for j <= i
//   A[i,j] = exp(s[i,j] - lse[i])
// Only the first `gatedChannels` channels of a head carry a gate (subdim gating); the rest are
// plain attention channels (P = 0 there). The official Triton kernel works in base 2
// (P2 = P / ln 2, lse2 = lse / ln 2); everything here is natural log, like every other family.
#pragma once

#include <cstdint>

namespace gatescope::kernels {

/// Non-owning view of one Wall head. Row r of q is at q + r * qStride (likewise k, v, and the
/// cumulative gates P at logDecayCumsum + r * pStride). Pointers must stay valid for the duration
/// of the call that receives the view.
struct WallHead {
    int64_t n = 0;          ///< sequence length
    int dk = 0;             ///< query/key dimension
    int dv = 0;             ///< value dimension (0 when v is not needed)
    int gatedChannels = 0;  ///< leading channels with a gate, 0 <= gatedChannels <= dk
    const float* q = nullptr;
    const float* k = nullptr;
    const float* v = nullptr;
    /// P [n, gatedChannels] (natural log, non-increasing in t); nullptr with gatedChannels 0.
    const float* logDecayCumsum = nullptr;
    int64_t qStride = 0, kStride = 0, vStride = 0, pStride = 0;  ///< 0: dk, dk, dv, gatedChannels
    float scale = 1.0f;  ///< multiplies the gated dot product (1/sqrt(dk) for the models here)
    /// Row log-sum-exp (natural log), length n; produced by the forward, needed for Attention.
    const float* lse = nullptr;

    int64_t qRow() const { return qStride ? qStride : dk; }
    int64_t kRow() const { return kStride ? kStride : dk; }
    int64_t vRow() const { return vStride ? vStride : dv; }
    int64_t pRow() const { return pStride ? pStride : gatedChannels; }
};

}  // namespace gatescope::kernels
