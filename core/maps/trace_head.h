// One head of a traced layer, ready for exact tiles: its factors read from the trace (as
// requiredFactors says) and the TileSource over them. Used by analyses and the viewer.
#pragma once

#include <memory>

#include "core/maps/head_maps.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

/// Owns the factors the source points into; immutable once loaded, so it may be shared between
/// threads (TileSource::compute is thread-safe).
struct TraceHead {
    int layer = 0, head = 0;
    MapSpec spec;
    HeadFactorSet factors;
    std::unique_ptr<kernels::TileSource> source;
};

/// Whether `layer` stores every factor its exact tiles are recomputed from (requiredFactors);
/// false for a layer whose maps are only in its pyramids.
bool canRecomputeExactTiles(const data::LayerInfo& layer);

/// Reads head `head` (a query head) of layer `layer`: factors stored per kv or gate head are read
/// from the head serving its group. Errors: Missing (layer or a required factor absent, naming
/// the dataset), the reader's errors, makeTileSource's; file fields name the trace.
Result<std::unique_ptr<TraceHead>> loadTraceHead(const data::TraceReader& reader, int layer,
                                                 int head);

}  // namespace gatescope::core
