// Exact recompute of any tile of a Gated Slot Attention head's token-to-token maps from its O(N)
// factors, and the TileSource that serves them.
//
// What a GSA layer record (scoreKind "gsa") holds, per layer; H query heads, Hkv kv heads,
// M = num_slots = LayerAttention::channels, natural logs throughout:
//   - logRetention [H, N, M]: log alpha_{t,j}, logsigmoid(f_proj(x)_{t,j}) divided by
//     gate_logit_normalizer;
//   - q [H, N, dk]: queries after the feature map (swish / relu / t2r), as they enter the
//     kernel; the layer's scale is 1;
//   - k [Hkv, N, dk]: keys after the feature map;
//   - v [Hkv, N, dv]: values after SiLU;
//   - write [H, N, M]: s_{t,j} = 1 - alpha_{t,j}, the write strength of token t into slot j;
//   - log_forget_cumsum [H, N, M]: G_{t,j} = sum_{l<=t} log alpha_{l,j} (accumulated in double,
//     rounded once to float);
//   - slot_scores [H, N, M]: o'_{t,j} = sum_{i<=t} (q_t . k_i) s_{i,j} exp(G_{t,j} - G_{i,j});
//   - slot_probs [H, N, M]: p_t = softmax_j(o'_t), the slot-read distribution;
//   - lse [H, N]: logsumexp_j o'_{t,j}, the slot-softmax normalizer.
// Gate-side arrays are given per query head (the kv head's values repeated over its group, as fla
// repeats them before the kernel); k and v stay per kv head (query head h reads kv head
// h / (H / Hkv)). The layer's output is o_t = sum_{i<=t} A[t,i] v_i with A below.
// Slot states (K~, V~ at chunk boundaries) are not stored: trace factors must be [H, N(, D)], and
// the states follow exactly from k, v, write and logRetention (gsaForward's stateK / stateV).
//
// Maps of one query head, for keys i <= t (cells above the diagonal or beyond n are 0):
//   Attention[t,i] = sum_j p_{t,j} s_{i,j} exp(G_{t,j} - G_{i,j})   rows sum to
//                    sum_j p_{t,j} (1 - prod_{l<=t} alpha_{l,j}) <= 1
//   Decay[t,i]     = sum_j p_{t,j} exp(G_{t,j} - G_{i,j})           the read-weighted retention
//                    of a unit write at i; 1 on the diagonal
//   Logit          none: GSA has no token-level softmax (hasMap false).
// exp() is only taken of G differences that are <= 0, or inside a 64-token block in double, so
// |G| of 1e4 and more neither overflows nor cancels. Stored G is float: with |G| ~ X the
// rounding of the stored values limits the relative accuracy of a cell to about X * 6e-8.
#pragma once

#include <cstdint>

#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {

/// Non-owning view of one query head's GSA factors; rows of every array are `slots` apart.
/// Pointers must outlive the view's users.
struct GsaHead {
    int64_t n = 0;
    int slots = 0;
    const float* slotProbs = nullptr;        ///< p [n, slots]
    const float* write = nullptr;            ///< s [n, slots] (needed for Attention only)
    const float* logForgetCumsum = nullptr;  ///< G [n, slots]
};

/// Attention needs p, s and G; Decay needs p and G; Logit is never available.
bool hasGsaMap(const GsaHead& head, MapKind kind);

/// Writes rows [row0, row0 + rows) x cols [col0, col0 + cols) of map `kind` into out (rows x cols,
/// row-major). Offsets may be negative or run past n (those cells get 0). Memory
/// O((64 + 256) x slots + 64 x 256) floats whatever the tile size. Thread-safe; does not spawn.
/// If the head lacks the factors for `kind`, out is filled with NaN.
void computeGsaTile(const GsaHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                    int64_t cols, float* out);

/// TileSource over a GsaHead view; the factors it points at must outlive it.
class GsaTileSource final : public TileSource {
public:
    explicit GsaTileSource(const GsaHead& head) : m_head(head) {}

    int64_t size() const override { return m_head.n; }
    bool hasMap(MapKind kind) const override { return hasGsaMap(m_head, kind); }
    void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        computeGsaTile(m_head, kind, row0, rows, col0, cols, out);
    }

    const GsaHead& head() const { return m_head; }

private:
    GsaHead m_head;
};

}  // namespace gatescope::kernels
