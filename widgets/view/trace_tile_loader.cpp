#include "widgets/view/trace_tile_loader.h"

#include <algorithm>

#include <fmt/format.h>

#include "kernels/cpu/tile_source.h"

namespace gatescope::widgets {

TraceTileLoader::TraceTileLoader(std::shared_ptr<const data::TraceReader> reader)
    : m_reader(reader), m_heads(std::move(reader)) {}

bool TraceTileLoader::hasMap(int layer, MapView map) const {
    const data::LayerInfo* info = m_reader->summary().layer(layer);
    if (!info) return false;
    const bool exact = core::canRecomputeExactTiles(*info);
    const char* attentionName = kernels::toString(kernels::MapKind::Attention);
    const char* decayName = kernels::toString(kernels::MapKind::Decay);
    const bool attention = info->pyramid(attentionName) || exact;
    const auto spec = core::mapSpecFromHeader(info->header);
    const bool decay = info->pyramid(decayName) || (exact && spec && spec->hasDecay);
    switch (map) {
        case MapView::Attention:
            return attention;
        case MapView::Decay:
            return decay;
        case MapView::Product:
            return attention && decay;
    }
    return false;
}

Result<TilePtr> TraceTileLoader::load(const TileKey& key) const {
    if (key.exact) return loadExact(key);
    if (key.map != MapView::Product) {
        return loadPyramid(
            key, kernels::toString(key.map == MapView::Attention ? kernels::MapKind::Attention
                                                                 : kernels::MapKind::Decay));
    }
    auto a = loadPyramid(key, kernels::toString(kernels::MapKind::Attention));
    if (!a) return a;
    auto d = loadPyramid(key, kernels::toString(kernels::MapKind::Decay));
    if (!d) return d;
    auto out = std::make_shared<TileData>(**a);
    out->key = key;
    for (size_t i = 0; i < out->values.size(); ++i)
        out->values[i] *= (*d)->values[i];
    computeTileStats(*out);
    return TilePtr(std::move(out));
}

Result<TilePtr> TraceTileLoader::loadPyramid(const TileKey& key, const char* map) const {
    auto tile =
        m_reader->pyramidTile(key.layer, map, key.pool, key.level, key.head, key.row, key.col);
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
    // compute() writes rows x cols densely; spread into the 256-wide layout.
    std::vector<float> a(static_cast<size_t>(out->rows * out->cols));
    std::vector<float> d;
    const bool wantDecay = key.map != MapView::Attention;
    const bool wantAttention = key.map != MapView::Decay;
    if (wantDecay && !source.hasMap(kernels::MapKind::Decay)) {
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} has no decay map", key.layer),
                     m_reader->path(),
                     {}};
    }
    if (wantAttention)
        source.compute(kernels::MapKind::Attention, r0, out->rows, c0, out->cols, a.data());
    if (wantDecay) {
        d.resize(a.size());
        source.compute(kernels::MapKind::Decay, r0, out->rows, c0, out->cols, d.data());
        if (!wantAttention)
            a.swap(d);
        else
            for (size_t i = 0; i < a.size(); ++i)
                a[i] *= d[i];
    }
    for (int64_t r = 0; r < out->rows; ++r) {
        std::copy_n(a.data() + r * out->cols, out->cols, out->values.data() + r * kTile);
    }
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
