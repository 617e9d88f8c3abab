#include "kernels/cpu/power_tile_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {

bool hasPowerMap(const PowerHead& head, MapKind kind) {
    const bool scores = head.q != nullptr && head.k != nullptr && head.dk > 0;
    switch (kind) {
        case MapKind::Decay:
            return true;
        case MapKind::Logit:
            return scores;
        case MapKind::Attention:
            return scores && head.logNormalizer != nullptr;
    }
    return false;
}

void computePowerTile(const PowerHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out) {
    if (rows <= 0 || cols <= 0) return;
    if (!hasPowerMap(head, kind)) {
        std::fill(out, out + rows * cols, std::numeric_limits<float>::quiet_NaN());
        return;
    }
    const float fill = kind == MapKind::Logit ? -std::numeric_limits<float>::infinity() : 0.0f;
    std::fill(out, out + rows * cols, fill);

    // Allowed cells lie in rows [ra, rb) and columns [ca, cb) (keys never pass the last row).
    const int64_t ra = std::max<int64_t>(row0, 0), rb = std::min(row0 + rows, head.n);
    if (ra >= rb) return;
    const int64_t ca = std::max<int64_t>(col0, 0), cb = std::min(col0 + cols, rb);
    if (ca >= cb) return;

    const bool scores = kind != MapKind::Decay;
    const int64_t dk = scores ? head.dk : 0;
    std::vector<float> q(kTileRowChunk * dk), kT(dk * kTileColChunk), gKeys(kTileColChunk);
    std::vector<float> s(kTileRowChunk * kTileColChunk);

    for (int64_t c0 = ca; c0 < cb; c0 += kTileColChunk) {
        const int64_t chunkCols = std::min(kTileColChunk, cb - c0);
        const int64_t colsPad = padToVec(chunkCols);
        for (int64_t j = 0; j < colsPad; ++j) {
            const bool inside = j < chunkCols;
            gKeys[j] = inside ? head.cumsum(c0 + j) : 0.0f;
            for (int64_t d = 0; d < dk; ++d)
                kT[d * colsPad + j] = inside ? head.k[(c0 + j) * head.kRow() + d] : 0.0f;
        }
        for (int64_t r0 = ra; r0 < rb; r0 += kTileRowChunk) {
            const int64_t chunkRows = std::min(kTileRowChunk, rb - r0);
            if (r0 + chunkRows - 1 < c0) continue;  // above the diagonal
            std::fill(s.begin(), s.begin() + chunkRows * colsPad, 0.0f);
            if (scores) {
                for (int64_t r = 0; r < chunkRows; ++r)
                    std::copy(head.q + (r0 + r) * head.qRow(), head.q + (r0 + r) * head.qRow() + dk,
                              q.begin() + r * dk);
                gemmAccumulate(chunkRows, colsPad, dk, q.data(), dk, kT.data(), colsPad, s.data(),
                               colsPad);
            }
            for (int64_t r = 0; r < chunkRows; ++r) {
                const int64_t i = r0 + r;
                const int64_t hi = std::min(chunkCols, i - c0 + 1);
                if (hi <= 0) continue;
                const float* srow = s.data() + r * colsPad;
                float* dst = out + (i - row0) * cols + (c0 - col0);
                const float gi = head.cumsum(i);
                switch (kind) {
                    case MapKind::Decay:
                        for (int64_t j = 0; j < hi; ++j)
                            dst[j] = std::exp(gi - gKeys[j]);
                        break;
                    case MapKind::Logit:
                        for (int64_t j = 0; j < hi; ++j)
                            dst[j] = head.logScore(srow[j]) + (gi - gKeys[j]);
                        break;
                    case MapKind::Attention: {
                        const float z = head.logNormalizer[i];
                        for (int64_t j = 0; j < hi; ++j)
                            dst[j] = std::exp(head.logScore(srow[j]) + (gi - gKeys[j]) - z);
                        break;
                    }
                }
            }
        }
    }
}

}  // namespace gatescope::kernels
