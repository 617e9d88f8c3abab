#include "widgets/view/trace_tile_loader.h"

#include <algorithm>

#include <fmt/format.h>

#include "kernels/cpu/tile_source.h"

namespace gatescope::widgets {

TraceTileLoader::TraceTileLoader(std::shared_ptr<const data::TraceReader> reader)
    : m_reader(reader), m_heads(std::move(reader)) {}

bool TraceTileLoader::hasMap(int layer, MapView map) const {
    const data::LayerInfo* info = m_reader->summary().layer(layer);
    return info && core::layerHasView(*info, map);
}

Result<TilePtr> TraceTileLoader::load(const TileKey& key) const {
    if (key.exact) return loadExact(key);
    auto tile = core::loadViewTile(*m_reader, key.layer, key.head, key.map, key.pool, key.level,
                                   key.row, key.col);
    if (!tile) return tile.error();
    auto out = std::make_shared<TileData>();
    out->key = key;
    out->rows = tile->rows;
    out->cols = tile->cols;
    out->values = *tile->data;  // a copy: the reader's block stays in its own cache
    computeTileStats(*out);
    return TilePtr(std::move(out));
}

Result<TilePtr> TraceTileLoader::loadExact(const TileKey& key) const {
    auto head = m_heads.get(key.layer, key.head);
    if (!head) return head.error();
    const kernels::TileSource& source = *(*head)->source;
    const int64_t n = source.size();
    const int64_t r0 = key.row * kTile, c0 = key.col * kTile;
    auto out = std::make_shared<TileData>();
    out->key = key;
    out->rows = std::clamp<int64_t>(n - r0, 0, kTile);
    out->cols = std::clamp<int64_t>(n - c0, 0, kTile);
    out->values.assign(static_cast<size_t>(kTile * kTile), 0.f);
    if (out->rows == 0 || out->cols == 0) return TilePtr(std::move(out));
    // Dense rows x cols, then spread into the 256-wide layout.
    std::vector<float> cells(static_cast<size_t>(out->rows * out->cols));
    if (auto st =
            core::computeViewCells(source, key.map, r0, out->rows, c0, out->cols, cells.data());
        !st) {
        return Error{st.error().kind,
                     fmt::format("layer {}: {}", key.layer, st.error().message),
                     m_reader->path(),
                     {}};
    }
    for (int64_t r = 0; r < out->rows; ++r)
        std::copy_n(cells.data() + r * out->cols, out->cols, out->values.data() + r * kTile);
    computeTileStats(*out);
    return TilePtr(std::move(out));
}

}  // namespace gatescope::widgets

namespace gatescope::widgets {

LevelRange levelRangeOf(const data::LayerInfo& layer, MapView map) {
    LevelRange range;
    range.canRecompute = core::canRecomputeExactTiles(layer);
    const char* decayName = kernels::toString(kernels::MapKind::Decay);
    const data::PyramidInfo* p = layer.pyramid(
        map == MapView::Decay ? decayName : kernels::toString(kernels::MapKind::Attention));
    if (map == MapView::Product && !layer.pyramid(decayName)) p = nullptr;
    if (!p || p->levels.empty()) {
        range.hasPyramid = false;
        return range;
    }
    range.finest = p->levels.front();
    range.coarsest = p->levels.back();
    return range;
}

}  // namespace gatescope::widgets
