// Exact recompute of any tile of a power-attention head's maps from its O(N) factors (q, k, the
// cumulative log gate G and the row log-normalizer), and the TileSource that serves them:
//   Logit[i,j]     = p log(|scale q_i.k_j| + eps) + G_i - G_j   (the package's log space)
//   Attention[i,j] = exp(Logit[i,j] - logNormalizer_i)
//   Decay[i,j]     = exp(G_i - G_j)                             (1 when ungated)
// for j <= i; cells above the diagonal or beyond n are 0 (-inf for Logit).
#pragma once

#include <cstdint>

#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {

/// Whether head has the factors for `kind`: Decay always; Logit needs q and k; Attention also
/// needs logNormalizer.
bool hasPowerMap(const PowerHead& head, MapKind kind);

/// Writes rows [row0, row0 + rows) x cols [col0, col0 + cols) of map `kind` into out (rows x
/// cols, row-major). Offsets may be negative or run past n (those cells get the fill value).
/// Memory O((64 + dk) x 256) floats whatever the tile size. Thread-safe; does not spawn. If the
/// head lacks the factors for `kind`, out is filled with NaN.
void computePowerTile(const PowerHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out);

/// TileSource over a PowerHead view; the factors it points at must outlive it.
class PowerTileSource final : public TileSource {
public:
    explicit PowerTileSource(const PowerHead& head) : m_head(head) {}

    int64_t size() const override { return m_head.n; }
    bool hasMap(MapKind kind) const override { return hasPowerMap(m_head, kind); }
    void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        computePowerTile(m_head, kind, row0, rows, col0, cols, out);
    }

    const PowerHead& head() const { return m_head; }

private:
    PowerHead m_head;
};

}  // namespace gatescope::kernels
