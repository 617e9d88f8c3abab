// Which map a picture of one head shows, and its values at any resolution: the attention or the
// decay map (kernels::MapKind), or their product cell by cell. The one door from a trace to map
// values: the viewer's tiles (loadViewTile, computeViewCells), the figures and anything else that
// wants a whole region (loadMapCells in map_cells.h) take their values here. Product tiles and
// cells at pyramid levels are the product of the two maps' max-pooled cells (an upper bound of
// the pooled product, equal to it on exact tiles). Thread-safe for distinct calls (the reader is).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "data/common/result.h"
#include "data/trace/trace_reader.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::core {

enum class MapView { Attention, Decay, Product };

/// The display label ("attention", "decay", "attention x decay").
const char* toString(MapView view);

/// A view by its script and settings word: "attention", "decay" (kernels::toString's names) or
/// "product"; nullopt for any other word.
std::optional<MapView> parseMapView(std::string_view word);

/// Whether layer `info` can show `view`: its map(s) stored (or derived) as a pyramid, or exact
/// tiles recomputable from its factors (canRecomputeExactTiles) for a map the layer has.
bool layerHasView(const data::LayerInfo& info, MapView view);

/// Tile (row, col) of pyramid level `level` of `view` for (layer, head), `pool`-pooled: the
/// reader's tile (stored, or derived from c), the product of both maps' tiles for Product.
/// Errors: the reader's (no such pyramid, level or tile), naming the trace.
Result<data::Tile> loadViewTile(const data::TraceReader& reader, int layer, int head, MapView view,
                                data::Pool pool, int level, int64_t row, int64_t col);

/// Exact values of `view` over queries [r0, r0 + rows) x keys [c0, c0 + cols) of one head's
/// `source` (TraceHead::source), row-major and dense in `out` (rows * cols floats). Errors:
/// Missing when the view needs a decay map the head has none of.
Status computeViewCells(const kernels::TileSource& source, MapView view, int64_t r0, int64_t rows,
                        int64_t c0, int64_t cols, float* out);

}  // namespace gatescope::core
