// Exact recompute of any tile of an additive-decay head's maps (Transformer, FoX, GatedFWA) from
// its O(N) factors, and the TileSource that serves them:
//   Logit[i,j]     = scale q_i.k_j + (c_i - c_j)
//   Attention[i,j] = exp(Logit[i,j] - lse_i)
//   Decay[i,j]     = exp(c_i - c_j)            (1 without decay)
// for allowed keys (j <= i, inside the window when one is set); disallowed cells and cells
// beyond n are 0 (-inf for Logit). fp32 arithmetic with the same operation order as
// attentionForward, so its lse normalizes these tiles to rows summing to 1 within fp32 rounding.
#pragma once

#include <cstdint>

#include "kernels/cpu/head_factors.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {

/// Whether head has the factors for `kind`: Decay always; Logit needs q and k; Attention also
/// needs lse.
bool hasAdditiveDecayMap(const AdditiveDecayHead& head, MapKind kind);

/// Writes rows [row0, row0 + rows) x cols [col0, col0 + cols) of map `kind` into out (rows x cols,
/// row-major). Offsets may be negative or run past n (those cells get the fill value). Memory
/// O((64 + dk) x 256) floats whatever the tile size. Thread-safe; does not spawn. If the head
/// lacks the factors for `kind`, out is filled with NaN.
void computeTile(const AdditiveDecayHead& head, MapKind kind, int64_t row0, int64_t rows,
                 int64_t col0, int64_t cols, float* out);

/// TileSource over an AdditiveDecayHead view; the factors it points at must outlive it.
class AdditiveDecayTileSource final : public TileSource {
public:
    explicit AdditiveDecayTileSource(const AdditiveDecayHead& head) : m_head(head) {}

    int64_t size() const override { return m_head.n; }
    bool hasMap(MapKind kind) const override { return hasAdditiveDecayMap(m_head, kind); }
    int64_t window() const override { return m_head.window; }
    void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        computeTile(m_head, kind, row0, rows, col0, cols, out);
    }

    const AdditiveDecayHead& head() const { return m_head; }

private:
    AdditiveDecayHead m_head;
};

}  // namespace gatescope::kernels
