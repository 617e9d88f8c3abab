#include "widgets/view/difference_loader.h"

#include "widgets/view/compare_tiles.h"

namespace gatescope::widgets {

TileScheduler::Loader differenceLoader(std::shared_ptr<const data::TraceReader> a,
                                       std::shared_ptr<const data::TraceReader> b) {
    auto la = std::make_shared<TraceTileLoader>(std::move(a));
    auto lb = std::make_shared<TraceTileLoader>(std::move(b));
    return [la, lb](const TileKey& key) -> Result<TilePtr> {
        TileKey source = key;
        source.variant = 0;
        auto ta = la->load(source);
        if (!ta) return ta.error();
        auto tb = lb->load(source);
        if (!tb) return tb.error();
        return differenceTile(**ta, **tb, static_cast<DiffMode>(key.variant), key);
    };
}

}  // namespace gatescope::widgets
