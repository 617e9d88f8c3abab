// TraceReader: tiles of pyramid levels that are not stored (format v4), pooled from the nearest
// stored level below them, the way a pyramid builder pools a level from the one below.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "data/h5/dataset.h"
#include "data/trace/trace_reader.h"

namespace gatescope::data {

int PyramidInfo::poolSource(int level) const {
    if (derived || std::binary_search(stored.begin(), stored.end(), level)) return -1;
    auto below = std::lower_bound(stored.begin(), stored.end(), level);
    return below == stored.begin() ? -1 : *std::prev(below);
}

Result<Tile> TraceReader::pooledTile(int layer, const PyramidInfo& info, Pool pool, int level,
                                     int from, int head, int64_t tileRow, int64_t tileCol) const {
    const std::string path = schema::pyramidPath(layer, info.map, pool, level);
    const int shift = level - from;
    const int64_t n = m_summary.nTokens, fromSide = levelSide(n, from);
    int64_t heads = 0;
    if (auto stored = levelDataset(schema::pyramidPath(layer, info.map, pool, from), from, heads);
        !stored)
        return stored.error();
    auto framed = tileFrame(path, heads, level, head, tileRow, tileCol);
    if (!framed || framed->data) return framed;  // out of range, or a non-causal tile
    Tile tile = *framed;
    // Tokens a cell row (or column) of `l` covers, clipped to N: the weight of a mean cell.
    auto extent = [n](int l, int64_t r) {
        return static_cast<double>(std::min((r + 1) << l, n) - (r << l));
    };
    auto load = [&]() -> Result<BlockCache::Block> {
        const int64_t span = kTileSide << shift;  // stored cells under one pooled tile's side
        const int64_t r0 = tileRow * span, r1 = std::min(fromSide, r0 + span);
        const int64_t c0 = tileCol * span, c1 = std::min(fromSide, c0 + span);
        std::vector<double> sums(static_cast<size_t>(kTileSide * kTileSide), 0.0);
        std::vector<float> maxima(static_cast<size_t>(kTileSide * kTileSide),
                                  -std::numeric_limits<float>::infinity());
        for (int64_t tr = r0 / kTileSide; tr * kTileSide < r1; ++tr)
            for (int64_t tc = c0 / kTileSide; tc * kTileSide < c1; ++tc) {
                auto child = pyramidTile(layer, info.map, pool, from, head, tr, tc);
                if (!child) return child.error();
                for (int64_t i = 0; i < child->rows; ++i) {
                    const int64_t r = tr * kTileSide + i;
                    const int64_t y = (r >> shift) - tileRow * kTileSide;
                    const double rowWeight = extent(from, r);
                    for (int64_t j = 0; j < child->cols; ++j) {
                        const int64_t c = tc * kTileSide + j;
                        const auto cell =
                            static_cast<size_t>(y * kTileSide + (c >> shift) - tileCol * kTileSide);
                        const float v = child->at(i, j);
                        if (pool == Pool::Max)
                            maxima[cell] = std::max(maxima[cell], v);
                        else
                            sums[cell] += static_cast<double>(v) * rowWeight * extent(from, c);
                    }
                }
            }
        auto values = std::make_shared<std::vector<float>>(kTileSide * kTileSide, 0.0f);
        for (int64_t y = 0; y < tile.rows; ++y)
            for (int64_t x = 0; x < tile.cols; ++x) {
                const auto cell = static_cast<size_t>(y * kTileSide + x);
                (*values)[cell] =
                    pool == Pool::Max
                        ? maxima[cell]
                        : static_cast<float>(sums[cell] / (extent(level, tileRow * kTileSide + y) *
                                                           extent(level, tileCol * kTileSide + x)));
            }
        return BlockCache::Block(values);
    };
    return cachedTile(tile, path, head, tileRow, tileCol, load);
}

}  // namespace gatescope::data
