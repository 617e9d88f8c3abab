// The O(N) factors that define one Wall Attention head exactly (Tilde Research's diagonal gates
// inside softmax attention; ../shared/specs/wall-attention-and-kernels.md §1.3-1.4, and the
// options of the authors' eager reference `wall_attn/reference.py`):
//   P[t,n] = sum_{tau <= t} g[tau,n]          natural-log cumulative gate of channel n (g <= 0)
//   c[t]   = sum_{tau <= t} g_scalar[tau]     optional FoX-style scalar gate (natural log)
//   s[i,j] = scale sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n]) + c[i] - c[j]    for allowed j
//   lse[i] = log(sum_{allowed j} exp(s[i,j]) + exp(sink))       the sink only in the denominator
//   A[i,j] = exp(s[i,j] - lse[i])
// Key j is allowed for query i when j <= i, i - j < window (when a window is set) and both lie in
// the same packed document (P and c restart at each document). Only the first `gatedChannels`
// channels of a head carry a gate (subdim gating); the rest are plain attention channels. The
// official Triton kernel works in base 2 (P2 = P / ln 2, lse2 = lse / ln 2, sink2 = sink / ln 2);
// everything here is natural log, like every other family.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

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
    /// P [n, gatedChannels] (natural log, non-increasing in t inside each document); nullptr with
    /// gatedChannels 0.
    const float* logDecayCumsum = nullptr;
    int64_t qStride = 0, kStride = 0, vStride = 0, pStride = 0;  ///< 0: dk, dk, dv, gatedChannels
    float scale = 1.0f;  ///< multiplies the gated dot product (1/sqrt(dk) for the models here)
    /// Row log-sum-exp (natural log, sink included), length n; produced by the forward, needed
    /// for Attention.
    const float* lse = nullptr;
    /// 0: every earlier key; w > 0: keys i - w < j <= i (the official `window_size`: w keys,
    /// the query's own included). P is not restarted by the window.
    int64_t window = 0;
    /// c [n]: cumulative scalar gate (natural log, restarting at each document), added to the
    /// logits as c[i] - c[j]; nullptr: none.
    const float* scalarDecayCumsum = nullptr;
    /// Sink logit (natural log) added to every row's denominator only; -inf: no sink.
    float sinkBias = -std::numeric_limits<float>::infinity();
    /// Sorted token positions where packed documents start, documentStarts[0] == 0, each < n;
    /// nullptr (or documents <= 1): one document.
    const int64_t* documentStarts = nullptr;
    int64_t documents = 0;

    int64_t qRow() const { return qStride ? qStride : dk; }
    int64_t kRow() const { return kStride ? kStride : dk; }
    int64_t vRow() const { return vStride ? vStride : dv; }
    int64_t pRow() const { return pStride ? pStride : gatedChannels; }

    /// First position of the document holding token t (O(log documents)).
    int64_t documentStart(int64_t t) const {
        if (!documentStarts || documents <= 1) return 0;
        return *(std::upper_bound(documentStarts, documentStarts + documents, t) - 1);
    }
    /// One past the last position of the document holding token t.
    int64_t documentEnd(int64_t t) const {
        if (!documentStarts || documents <= 1) return n;
        const int64_t* next = std::upper_bound(documentStarts, documentStarts + documents, t);
        return next == documentStarts + documents ? n : *next;
    }
    /// First key allowed for query i (window and document); keys firstKey(i) .. i are allowed.
    int64_t firstKey(int64_t i) const {
        const int64_t windowStart = window > 0 ? std::max<int64_t>(i - window + 1, 0) : 0;
        return std::max(windowStart, documentStart(i));
    }
};

}  // namespace gatescope::kernels
