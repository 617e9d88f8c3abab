// The tile loader of compare mode's difference view: a key (map, level or exact, region; its
// variant is the DiffMode) is loaded from trace A and from trace B at that same key, on the
// calling worker, and combined cell by cell (differenceTile). Memory stays bounded by tiles:
// nothing but the two source tiles and the result is held. Thread-safe like TraceTileLoader.
#pragma once

#include <memory>

#include "widgets/view/tile_scheduler.h"
#include "widgets/view/trace_tile_loader.h"

namespace gatescope::widgets {

/// A TileScheduler::Loader over two traces of the same tokens. Errors: either trace's (a map
/// one of them lacks: Missing).
TileScheduler::Loader differenceLoader(std::shared_ptr<const data::TraceReader> a,
                                       std::shared_ptr<const data::TraceReader> b);

}  // namespace gatescope::widgets
