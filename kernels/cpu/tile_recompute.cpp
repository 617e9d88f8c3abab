#include "kernels/cpu/tile_recompute.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {

bool hasAdditiveDecayMap(const AdditiveDecayHead& head, MapKind kind) {
    const bool scores = head.q != nullptr && head.k != nullptr && head.dk > 0;
    switch (kind) {
        case MapKind::Decay:
            return true;
        case MapKind::Logit:
            return scores;
        case MapKind::Attention:
            return scores && head.lse != nullptr;
    }
    return false;
}

void computeTile(const AdditiveDecayHead& head, MapKind kind, int64_t row0, int64_t rows,
                 int64_t col0, int64_t cols, float* out) {
    if (rows <= 0 || cols <= 0) return;
    if (!hasAdditiveDecayMap(head, kind)) {
        std::fill(out, out + rows * cols, std::numeric_limits<float>::quiet_NaN());
        return;
    }
    const float fill = kind == MapKind::Logit ? -std::numeric_limits<float>::infinity() : 0.0f;
    std::fill(out, out + rows * cols, fill);

    // The allowed cells lie in rows [ra, rb) and columns [ca, cb): keys never exceed the last
    // row and never precede the first row's window.
    const int64_t ra = std::max<int64_t>(row0, 0), rb = std::min(row0 + rows, head.n);
    if (ra >= rb) return;
    const int64_t ca = std::max(col0, head.firstKey(ra)), cb = std::min(col0 + cols, rb);
    if (ca >= cb) return;

    const bool scores = kind != MapKind::Decay;
    const int64_t dk = scores ? head.dk : 0;
    const int64_t qRow = head.qRow(), kRow = head.kRow();
    AlignedFloats q(kTileRowChunk * dk), kT(dk * kTileColChunk), cKeys(kTileColChunk);
    AlignedFloats s(kTileRowChunk * kTileColChunk);

    for (int64_t c0 = ca; c0 < cb; c0 += kTileColChunk) {
        const int64_t chunkCols = std::min(kTileColChunk, cb - c0);
        const int64_t colsPad = padToVec(chunkCols);
        for (int64_t j = 0; j < colsPad; ++j) {
            const bool inside = j < chunkCols;
            cKeys[j] = inside && head.logDecayCumsum ? head.logDecayCumsum[c0 + j] : 0.0f;
            for (int64_t d = 0; d < dk; ++d)
                kT[d * colsPad + j] = inside ? head.k[(c0 + j) * kRow + d] : 0.0f;
        }
        for (int64_t r0 = ra; r0 < rb; r0 += kTileRowChunk) {
            const int64_t chunkRows = std::min(kTileRowChunk, rb - r0);
            if (r0 + chunkRows - 1 < c0) continue;  // above the diagonal
            if (c0 + chunkCols - 1 < head.firstKey(r0))
                break;  // left of the window, and so
                        // are all later rows
            std::fill(s.begin(), s.begin() + chunkRows * colsPad, 0.0f);
            if (scores) {
                for (int64_t r = 0; r < chunkRows; ++r)
                    std::copy(head.q + (r0 + r) * qRow, head.q + (r0 + r) * qRow + dk,
                              q.begin() + r * dk);
                gemmAccumulate(chunkRows, colsPad, dk, q.data(), dk, kT.data(), colsPad, s.data(),
                               colsPad);
            }
            for (int64_t r = 0; r < chunkRows; ++r) {
                const int64_t i = r0 + r;
                const int64_t lo = std::max<int64_t>(head.firstKey(i) - c0, 0);
                const int64_t hi = std::min(chunkCols, i - c0 + 1);
                if (hi <= lo) continue;
                float* srow = s.data() + r * colsPad;
                const float ci = head.logDecayCumsum ? head.logDecayCumsum[i] : 0.0f;
                biasMaskMax(srow, colsPad, scores ? head.scale : 0.0f, ci, cKeys.data(), lo, hi);
                if (kind == MapKind::Attention) expShiftSum(srow, colsPad, head.lse[i], false);
                if (kind == MapKind::Decay) expShiftSum(srow, colsPad, 0.0f, false);
                std::copy(srow + lo, srow + hi, out + (i - row0) * cols + (c0 - col0) + lo);
            }
        }
    }
}

}  // namespace gatescope::kernels
