// Exact recompute of any tile of a Wall Attention head's maps from its O(N) factors (q, k, the
// per-channel cumulative gates P, the optional scalar-gate cumsum c, the row lse, the window and
// the packed-document starts), and the TileSource that serves them:
//   Logit[i,j]     = scale sum_n q_i,n k_j,n exp(P_i,n - P_j,n) + c_i - c_j
//   Attention[i,j] = exp(Logit[i,j] - lse_i)          (lse holds the sink: rows sum to
//                                                       1 - exp(sink - lse_i))
//   Decay[i,j]     = D_ij exp(c_i - c_j),  D_ij = (1 / dg) sum_{n < dg} exp(P_i,n - P_j,n) the mean
//                    retention of the gated channels (1 without gated channels; exp(c_i - c_j) is
//                    1 without the scalar gate)
// for allowed keys (j <= i, inside the window, same document; wall_head.h); other cells are 0
// (-inf for Logit). Per-channel decay exp(P_i,n - P_j,n) of any channel follows from the stored
// P directly.
#pragma once

#include <cstdint>
#include <vector>

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

/// TileSource over a WallHead view; the factors it points at must outlive it, except the
/// document starts when they are handed over here (the source then owns them; not copyable).
class WallTileSource final : public TileSource {
public:
    explicit WallTileSource(const WallHead& head, std::vector<int64_t> documentStarts = {})
        : m_head(head), m_documentStarts(std::move(documentStarts)) {
        if (!m_documentStarts.empty()) {
            m_head.documentStarts = m_documentStarts.data();
            m_head.documents = static_cast<int64_t>(m_documentStarts.size());
        }
    }
    WallTileSource(const WallTileSource&) = delete;
    WallTileSource& operator=(const WallTileSource&) = delete;

    int64_t size() const override { return m_head.n; }
    int64_t window() const override { return m_head.window; }
    bool hasMap(MapKind kind) const override { return hasWallMap(m_head, kind); }
    void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        computeWallTile(m_head, kind, row0, rows, col0, cols, out);
    }

    const WallHead& head() const { return m_head; }

private:
    WallHead m_head;
    std::vector<int64_t> m_documentStarts;
};

}  // namespace gatescope::kernels
