#include "widgets/view/tile_plan.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

namespace {

struct TileSpan {
    int64_t r0 = 0, r1 = -1, c0 = 0, c1 = -1;  // inclusive
};

TileSpan spanOf(const TokenRect& rect, int64_t n, int level) {
    TileSpan s;
    if (rect.x1 <= rect.x0 || rect.y1 <= rect.y0 || n <= 0) return s;
    const double t = static_cast<double>(kTile << level);
    const int64_t last = (n - 1) / (kTile << level);
    s.c0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(rect.x0 / t)), 0, last);
    s.c1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(rect.x1 / t)) - 1, 0, last);
    s.r0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(rect.y0 / t)), 0, last);
    s.r1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(rect.y1 / t)) - 1, 0, last);
    return s;
}

}  // namespace

LevelChoice chooseLevel(double tokensPerPixel, const LevelRange& range, int64_t exactTilesVisible,
                        int64_t maxExactTiles) {
    if (!range.hasPyramid) return {0, true};
    const double tpp = std::max(tokensPerPixel, 1e-9);
    // Cells of at least one pixel: max pooling then keeps every needle visible.
    const int wanted = tpp <= 1 ? 0 : static_cast<int>(std::ceil(std::log2(tpp) - 1e-9));
    // Exact tiles only where a cell is at least a pixel (no subsampling that could hide a needle).
    if (wanted == 0 && range.finest > 0 && range.canRecompute &&
        exactTilesVisible <= maxExactTiles) {
        return {0, true};
    }
    return {std::clamp(wanted, range.finest, range.coarsest), false};
}

std::vector<TileKey> visibleTiles(const TokenRect& rect, int64_t n, const TileKey& base) {
    std::vector<TileKey> out;
    const TileSpan s = spanOf(rect, n, base.level);
    for (int64_t r = s.r0; r <= s.r1; ++r) {
        for (int64_t c = s.c0; c <= std::min(s.c1, r); ++c) {
            TileKey k = base;
            k.row = r;
            k.col = c;
            out.push_back(k);
        }
    }
    const double t = static_cast<double>(kTile << base.level);
    const double cx = (rect.x0 + rect.x1) / 2 / t - 0.5, cy = (rect.y0 + rect.y1) / 2 / t - 0.5;
    std::stable_sort(out.begin(), out.end(), [&](const TileKey& a, const TileKey& b) {
        const double da = std::hypot(a.col - cx, a.row - cy),
                     db = std::hypot(b.col - cx, b.row - cy);
        return da < db;
    });
    return out;
}

int64_t causalTileCount(const TokenRect& rect, int64_t n, int level) {
    const TileSpan s = spanOf(rect, n, level);
    int64_t count = 0;
    for (int64_t r = s.r0; r <= s.r1; ++r)
        count += std::max<int64_t>(0, std::min(s.c1, r) - s.c0 + 1);
    return count;
}

}  // namespace gatescope::widgets
