#include "widgets/view/tile_key.h"

#include <cmath>
#include <limits>

#include "kernels/cpu/tile_source.h"

namespace gatescope::widgets {

size_t TileKeyHash::operator()(const TileKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.layer);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    mix(static_cast<uint64_t>(k.head));
    mix(static_cast<uint64_t>(k.map));
    mix(static_cast<uint64_t>(k.pool));
    mix(static_cast<uint64_t>(k.level) * 2 + (k.exact ? 1 : 0));
    mix(static_cast<uint64_t>(k.row));
    mix(static_cast<uint64_t>(k.col));
    mix(static_cast<uint64_t>(k.variant));
    return static_cast<size_t>(h);
}

void computeTileStats(TileData& tile) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo, pos = lo;
    for (int64_t r = 0; r < tile.rows; ++r) {
        for (int64_t c = 0; c < tile.cols; ++c) {
            const float v = tile.at(r, c);
            if (!std::isfinite(v)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            if (v > 0) pos = std::min(pos, v);
        }
    }
    tile.min = std::isfinite(lo) ? lo : 0.f;
    tile.max = std::isfinite(hi) ? hi : 0.f;
    tile.minPositive = std::isfinite(pos) ? pos : 0.f;
}

}  // namespace gatescope::widgets
