// TraceTileLoader: the TileScheduler::Loader of a trace. Pyramid tiles come from the reader
// (its own bounded block cache); exact tiles are recomputed from the head's factors through
// core::makeTileSource. Product tiles multiply attention and decay cell by cell (at pyramid
// levels that is the product of the pooled maps, an approximation the UI labels).
#pragma once

#include <memory>

#include "widgets/view/head_source_cache.h"
#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

class TraceTileLoader {
public:
    explicit TraceTileLoader(std::shared_ptr<const data::TraceReader> reader);

    /// Thread-safe. Errors: Missing for maps the layer does not store (decay of an ungated
    /// layer), the reader's and the recompute's errors.
    Result<TilePtr> load(const TileKey& key) const;

    /// Whether `map` can be shown for `layer` (from the pyramid or by recomputing).
    bool hasMap(int layer, MapView map) const;

    /// The head's factors and exact source from the loader's cache (shared with the exact
    /// tiles, so a view reading rows or columns does not read the factors again). Thread-safe;
    /// blocking (reads the factors when absent).
    Result<std::shared_ptr<const HeadSource>> head(int layer, int head) const {
        return m_heads.get(layer, head);
    }

private:
    Result<TilePtr> loadExact(const TileKey& key) const;

    std::shared_ptr<const data::TraceReader> m_reader;
    mutable HeadSourceCache m_heads;
};

}  // namespace gatescope::widgets

#include "widgets/view/tile_plan.h"

namespace gatescope::widgets {

/// The stored pyramid levels of `map` in `layer` (attention's for Product) and whether exact
/// tiles can be recomputed there.
LevelRange levelRangeOf(const data::LayerInfo& layer, MapView map);

}  // namespace gatescope::widgets
