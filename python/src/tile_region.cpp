#include "tile_region.h"

#include <algorithm>

#include <fmt/format.h>

#include "data/trace/pyramid_geometry.h"

namespace gatescope::python {

namespace {

Error usage(const data::TraceReader& reader, std::string message) {
    return Error{ErrorKind::Usage, std::move(message), reader.path(), {}};
}

bool wantsAttention(RegionMap map) {
    return map != RegionMap::Decay;
}
bool wantsDecay(RegionMap map) {
    return map != RegionMap::Attention;
}

/// One pyramid map over the cell rectangle of `region`, multiplied into its values.
Status readLevel(const data::TraceReader& reader, const RegionRequest& q, const char* map,
                 bool multiply, Region& region) {
    const int level = *q.level;
    const int64_t r0 = region.firstRow, c0 = region.firstCol;
    const int64_t r1 = r0 + region.rows, c1 = c0 + region.cols;
    const int64_t side = data::kTileSide;
    for (int64_t tr = r0 / side; tr <= (r1 - 1) / side; ++tr)
        for (int64_t tc = c0 / side; tc <= std::min(tr, (c1 - 1) / side); ++tc) {
            auto tile = reader.pyramidTile(q.layer, map, q.pool, level, q.head, tr, tc);
            if (!tile) return tile.error();
            for (int64_t r = std::max(r0, tr * side); r < std::min(r1, tr * side + tile->rows); ++r)
                for (int64_t c = std::max(c0, tc * side); c < std::min(c1, tc * side + tile->cols);
                     ++c) {
                    float& dst =
                        region.values[static_cast<size_t>((r - r0) * region.cols + c - c0)];
                    const float v = tile->at(r - tr * side, c - tc * side);
                    dst = multiply ? dst * v : v;
                }
        }
    return Ok{};
}

}  // namespace

std::optional<RegionMap> parseRegionMap(std::string_view word) {
    if (word == "attention") return RegionMap::Attention;
    if (word == "decay") return RegionMap::Decay;
    if (word == "product") return RegionMap::Product;
    return std::nullopt;
}

Status checkRegion(const data::TraceReader& reader, const RegionRequest& q) {
    const int64_t n = reader.summary().nTokens;
    const data::LayerInfo* layer = reader.summary().layer(q.layer);
    if (!layer) return usage(reader, fmt::format("layer {} is not in the trace", q.layer));
    if (q.head < 0 || q.head >= layer->header.nHeads)
        return usage(reader, fmt::format("head {} is outside layer {}'s heads [0, {})", q.head,
                                         q.layer, layer->header.nHeads));
    for (auto [a, b, what] : {std::tuple{q.row0, q.row1, "rows"}, {q.col0, q.col1, "cols"}})
        if (a < 0 || b > n || a >= b)
            return usage(reader, fmt::format("{} [{}, {}) must be a non-empty range inside the "
                                             "sequence [0, {})",
                                             what, a, b, n));
    if (!q.level) {
        if ((q.row1 - q.row0) > kMaxRegionCells / (q.col1 - q.col0))
            return usage(reader, fmt::format("an exact region of {} x {} cells is more than {}; "
                                             "ask for a pyramid level",
                                             q.row1 - q.row0, q.col1 - q.col0, kMaxRegionCells));
        const auto spec = core::mapSpecFromHeader(layer->header);
        if (wantsDecay(q.map) && spec && !spec->hasDecay)
            return Error{
                ErrorKind::Missing,
                fmt::format("layer {} ({}) has no decay map", q.layer, layer->header.scoreKind),
                reader.path(),
                {}};
        return Ok{};
    }
    for (const char* map : {"attention", "decay"}) {
        if ((map[0] == 'a' && !wantsAttention(q.map)) || (map[0] == 'd' && !wantsDecay(q.map)))
            continue;
        const data::PyramidInfo* p = layer->pyramid(map);
        const bool stored = p && std::count(p->levels.begin(), p->levels.end(), *q.level) > 0 &&
                            std::count(p->pools.begin(), p->pools.end(), q.pool) > 0;
        if (!stored)
            return Error{ErrorKind::Missing,
                         fmt::format("layer {} stores no {} pyramid level {} ({} pool)", q.layer,
                                     map, *q.level, data::toString(q.pool)),
                         reader.path(), data::schema::pyramidPath(q.layer, map, q.pool, *q.level)};
    }
    return Ok{};
}

Result<Region> exactRegion(const core::TraceHead& head, const RegionRequest& q,
                           const std::string& path) {
    const kernels::TileSource& source = *head.source;
    if (wantsAttention(q.map) && !source.hasMap(kernels::MapKind::Attention))
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} stores no row normalizer: no exact attention", q.layer),
                     path,
                     {}};
    Region out;
    out.rows = q.row1 - q.row0;
    out.cols = q.col1 - q.col0;
    out.firstRow = q.row0;
    out.firstCol = q.col0;
    out.values.resize(static_cast<size_t>(out.rows * out.cols));
    const auto first =
        q.map == RegionMap::Decay ? kernels::MapKind::Decay : kernels::MapKind::Attention;
    source.compute(first, q.row0, out.rows, q.col0, out.cols, out.values.data());
    if (q.map == RegionMap::Product) {
        std::vector<float> decay(out.values.size());
        source.compute(kernels::MapKind::Decay, q.row0, out.rows, q.col0, out.cols, decay.data());
        for (size_t i = 0; i < decay.size(); ++i)
            out.values[i] *= decay[i];
    }
    return out;
}

Result<Region> pyramidRegion(const data::TraceReader& reader, const RegionRequest& q) {
    const int level = *q.level;
    const int64_t cell = int64_t{1} << level;
    Region out;
    out.firstRow = q.row0 / cell;
    out.firstCol = q.col0 / cell;
    out.rows = (q.row1 + cell - 1) / cell - out.firstRow;
    out.cols = (q.col1 + cell - 1) / cell - out.firstCol;
    out.values.assign(static_cast<size_t>(out.rows * out.cols), 0.f);
    if (wantsAttention(q.map))
        if (auto st = readLevel(reader, q, "attention", false, out); !st) return st.error();
    if (wantsDecay(q.map))
        if (auto st = readLevel(reader, q, "decay", q.map == RegionMap::Product, out); !st)
            return st.error();
    return out;
}

}  // namespace gatescope::python
