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
    WallScratch scratch;
    for (int64_t r0 = ra; r0 < rb; r0 += kWallSubBlock) {
        const int64_t chunkRows = std::min(kWallSubBlock, rb - r0);
        const int64_t chunkEnd = std::min(cb, r0 + chunkRows);  // keys never pass the last row
        if (chunkEnd <= ca) continue;
        float* block = out + (r0 - row0) * cols + (ca - col0);
        if (kind != MapKind::Decay || head.gatedChannels > 0)
            wallScoreBlock(head, operands, r0, chunkRows, ca, chunkEnd - ca, block, cols, scratch);
        for (int64_t r = 0; r < chunkRows; ++r) {
            const int64_t i = r0 + r;
            float* row = block + r * cols;
            const int64_t allowed = std::min(chunkEnd, i + 1) - ca;  // keys ca .. i
            for (int64_t c = 0; c < allowed; ++c) {
                switch (kind) {
                    case MapKind::Logit:
                        row[c] *= head.scale;
                        break;
                    case MapKind::Attention:
                        row[c] = std::exp(head.scale * row[c] - head.lse[i]);
                        break;
                    case MapKind::Decay:
                        row[c] = head.gatedChannels ? row[c] * meanOverChannels : 1.0f;
                        break;
                }
            }
            for (int64_t c = std::max<int64_t>(allowed, 0); c < chunkEnd - ca; ++c)
                row[c] = fill;  // above the diagonal
        }
    }
}

}  // namespace gatescope::kernels
