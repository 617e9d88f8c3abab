// Exact recompute of any tile of a Wall Attention head's maps from its O(N) factors (q, k, the
// per-channel cumulative gates P and the row lse), and the TileSource that serves them:
//   Logit[i,j]     = scale sum_n q_i,n k_j,n exp(P_i,n - P_j,n)
//   Attention[i,j] = exp(Logit[i,j] - lse_i)
//   Decay[i,j]     = (1 / dg) sum_{n < dg} exp(P_i,n - P_j,n)   mean retention of the gated
//                    channels between key j and query i (1 without gated channels)
// for j <= i; cells above the diagonal or beyond n are 0 (-inf for Logit). Per-channel decay
// exp(P_i,n - P_j,n) of any channel follows from the stored P directly.
#pragma once

#include <cstdint>

#include "kernels/cpu/tile_source.h"
#include "kernels/cpu/wall_head.h"

namespace gatescope::kernels {

/// Decay always; Logit needs q and k; Attention also needs lse.
bool hasWallMap(const WallHead& head, MapKind kind);

/// Writes rows [row0, row0 + rows) x cols [col0, col0 + cols) of map `kind` into out (rows x
/// cols, row-major). Offsets may be negative or run past n (those cells get the fill value).
/// Memory O(64 x (64 + dk)) floats besides out. Thread-safe; does not spawn. If the head lacks
/// the factors for `kind`, out is filled with NaN.
void computeWallTile(const WallHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                     int64_t cols, float* out);

/// TileSource over a WallHead view; the factors it points at must outlive it.
class WallTileSource final : public TileSource {
public:
    explicit WallTileSource(const WallHead& head) : m_head(head) {}

    int64_t size() const override { return m_head.n; }
    bool hasMap(MapKind kind) const override { return hasWallMap(m_head, kind); }
    void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        computeWallTile(m_head, kind, row0, rows, col0, cols, out);
    }

    const WallHead& head() const { return m_head; }

private:
    WallHead m_head;
};

}  // namespace gatescope::kernels
