#include "core/maps/map_view.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/maps/head_maps.h"
#include "core/maps/trace_head.h"

namespace gatescope::core {

const char* toString(MapView view) {
    switch (view) {
        case MapView::Attention:
            return "attention";
        case MapView::Decay:
            return "decay";
        case MapView::Product:
            return "attention x decay";
    }
    return "attention";
}

std::optional<MapView> parseMapView(std::string_view word) {
    if (word == "product") return MapView::Product;
    switch (kernels::parseMapKind(word).value_or(kernels::MapKind::Logit)) {
        case kernels::MapKind::Attention:
            return MapView::Attention;
        case kernels::MapKind::Decay:
            return MapView::Decay;
        case kernels::MapKind::Logit:
            break;
    }
    return std::nullopt;
}

bool layerHasView(const data::LayerInfo& info, MapView view) {
    const bool exact = canRecomputeExactTiles(info);
    const bool attention = info.pyramid(kernels::toString(kernels::MapKind::Attention)) || exact;
    const auto spec = mapSpecFromHeader(info.header);
    const bool decay = info.pyramid(kernels::toString(kernels::MapKind::Decay)) ||
                       (exact && spec && spec->hasDecay);
    switch (view) {
        case MapView::Attention:
            return attention;
        case MapView::Decay:
            return decay;
        case MapView::Product:
            return attention && decay;
    }
    return false;
}

Result<data::Tile> loadViewTile(const data::TraceReader& reader, int layer, int head, MapView view,
                                data::Pool pool, int level, int64_t row, int64_t col) {
    auto read = [&](kernels::MapKind kind) {
        return reader.pyramidTile(layer, kernels::toString(kind), pool, level, head, row, col);
    };
    if (view != MapView::Product)
        return read(view == MapView::Attention ? kernels::MapKind::Attention
                                               : kernels::MapKind::Decay);
    auto a = read(kernels::MapKind::Attention);
    if (!a) return a;
    auto d = read(kernels::MapKind::Decay);
    if (!d) return d;
    auto values = std::make_shared<std::vector<float>>(*a->data);
    for (size_t i = 0; i < values->size(); ++i)
        (*values)[i] *= (*d->data)[i];
    return data::Tile{a->rows, a->cols, std::move(values)};
}

Status computeViewCells(const kernels::TileSource& source, MapView view, int64_t r0, int64_t rows,
                        int64_t c0, int64_t cols, float* out) {
    if (view != MapView::Attention && !source.hasMap(kernels::MapKind::Decay))
        return Error{ErrorKind::Missing, "the head has no decay map", {}, {}};
    if (view == MapView::Decay) {
        source.compute(kernels::MapKind::Decay, r0, rows, c0, cols, out);
        return Ok{};
    }
    source.compute(kernels::MapKind::Attention, r0, rows, c0, cols, out);
    if (view == MapView::Product) {
        std::vector<float> decay(static_cast<size_t>(rows * cols));
        source.compute(kernels::MapKind::Decay, r0, rows, c0, cols, decay.data());
        for (size_t i = 0; i < decay.size(); ++i)
            out[i] *= decay[i];
    }
    return Ok{};
}

}  // namespace gatescope::core
