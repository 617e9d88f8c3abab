// The O(N) factors that define one head's attention and decay matrices exactly, for the additive
// log-decay family (Transformer, FoX, GatedFWA): A[i,j] = exp(scale q_i.k_j + c_i - c_j - lse_i) for
// keys j allowed for query i (causal, and inside the window when one is set), 0 otherwise.
#pragma once

#include <cstdint>

namespace gatescope::kernels {

/// Non-owning view of one head's factors. Row r of q is at q + r * qStride (likewise k, v).
/// Pointers must stay valid for the duration of the call that receives the view.
struct AdditiveDecayHead {
    int64_t n = 0;          ///< sequence length
    int dk = 0;             ///< query/key dimension
    int dv = 0;             ///< value dimension (0 when v is not needed)
    const float* q = nullptr;
    const float* k = nullptr;
    const float* v = nullptr;
    int64_t qStride = 0, kStride = 0, vStride = 0;  ///< elements between rows; 0 means dk (dv)
    /// Cumulative log-decay c (natural log), length n; nullptr means no decay (plain softmax).
    const float* logDecayCumsum = nullptr;
    float scale = 1.0f;     ///< multiplies q.k (1/sqrt(dk) for the models here)
    int64_t window = 0;     ///< 0: all keys j <= i; w > 0: keys i - w + 1 <= j <= i
    /// Row log-sum-exp (natural log) of scale q.k + c_i - c_j over allowed keys, length n. Needed to
    /// recompute normalized attention tiles; produced by the forward.
    const float* lse = nullptr;

    int64_t qRow() const { return qStride ? qStride : dk; }
    int64_t kRow() const { return kStride ? kStride : dk; }
    int64_t vRow() const { return vStride ? vStride : dv; }
    /// First key index allowed for query i.
    int64_t firstKey(int64_t i) const { return window > 0 && i - window + 1 > 0 ? i - window + 1 : 0; }
};

}  // namespace gatescope::kernels
