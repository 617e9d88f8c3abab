#include "kernels/cpu/wall_tile_source.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/wall_scores.h"

namespace gatescope::kernels {

bool hasWallMap(const WallHead& head, MapKind kind) {
    const bool scores = head.q != nullptr && head.k != nullptr && head.dk > 0;
    switch (kind) {
        case MapKind::Decay:
            return head.gatedChannels == 0 || head.logDecayCumsum != nullptr;
        case MapKind::Logit:
            return scores;
        case MapKind::Attention:
            return scores && head.lse != nullptr;
    }
    return false;
}

void computeWallTile(const WallHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                     int64_t cols, float* out) {
    if (rows <= 0 || cols <= 0) return;
    if (!hasWallMap(head, kind)) {
        std::fill(out, out + rows * cols, std::numeric_limits<float>::quiet_NaN());
        return;
    }
    const float fill = kind == MapKind::Logit ? -std::numeric_limits<float>::infinity() : 0.0f;
    std::fill(out, out + rows * cols, fill);
    const int64_t ra = std::max<int64_t>(row0, 0), rb = std::min(row0 + rows, head.n);
    const int64_t ca = std::max<int64_t>(col0, 0), cb = std::min(col0 + cols, rb);
    if (ra >= rb || ca >= cb) return;

    const auto operands = kind == MapKind::Decay ? WallOperands::GatedOnes : WallOperands::QueryKey;
    const float meanOverChannels = head.gatedChannels ? 1.0f / head.gatedChannels : 1.0f;
    const float* c = head.scalarDecayCumsum;
    WallScratch scratch;
    for (int64_t r0 = ra; r0 < rb; r0 += kWallSubBlock) {
        const int64_t chunkRows = std::min(kWallSubBlock, rb - r0);
        const int64_t chunkEnd = std::min(cb, r0 + chunkRows);  // keys never pass the last row
        // firstKey never decreases with the row: keys before the chunk's first one stay fill.
        const int64_t chunkStart = std::max(ca, head.firstKey(r0));
        if (chunkEnd <= chunkStart) continue;
        float* block = out + (r0 - row0) * cols + (chunkStart - col0);
        if (kind != MapKind::Decay || head.gatedChannels > 0)
            wallScoreBlock(head, operands, r0, chunkRows, chunkStart, chunkEnd - chunkStart, block,
                           cols, scratch);
        for (int64_t r = 0; r < chunkRows; ++r) {
            const int64_t i = r0 + r;
            float* row = block + r * cols;
            const int64_t lo = std::max(head.firstKey(i), chunkStart) - chunkStart;
            const int64_t hi = std::min(chunkEnd, i + 1) - chunkStart;  // keys firstKey(i) .. i
            for (int64_t col = 0; col < chunkEnd - chunkStart; ++col) {
                if (col < lo || col >= hi) {
                    row[col] = fill;  // above the diagonal, outside the window or the document
                    continue;
                }
                const float bias = c ? c[i] - c[chunkStart + col] : 0.0f;
                switch (kind) {
                    case MapKind::Logit:
                        row[col] = head.scale * row[col] + bias;
                        break;
                    case MapKind::Attention:
                        row[col] = std::exp(head.scale * row[col] + bias - head.lse[i]);
                        break;
                    case MapKind::Decay:
                        row[col] = (head.gatedChannels ? row[col] * meanOverChannels : 1.0f) *
                                   (c ? std::exp(bias) : 1.0f);
                        break;
                }
            }
        }
    }
}

}  // namespace gatescope::kernels
