// HeadSourceCache: exact-tile sources for (layer, head), built from the factors stored in a trace
// (q, k, lse, ... as core::requiredFactors says). A head's factors are O(N) (for N = 65,536 and
// head_dim 64, about 33 MB); the cache keeps the `capacity` most recently used heads.
#pragma once

#include <list>
#include <memory>
#include <mutex>

#include "core/maps/head_maps.h"
#include "core/maps/trace_head.h"
#include "data/trace/trace_reader.h"

namespace gatescope::widgets {

/// A head's factors and the TileSource over them, as core/maps loads them (the one door from a
/// trace to map values). Immutable.
using HeadSource = core::TraceHead;

class HeadSourceCache {
public:
    HeadSourceCache(std::shared_ptr<const data::TraceReader> reader, size_t capacity = 2);

    /// The source for (layer, head), loading it (under a lock: one load at a time) when absent.
    /// Thread-safe. Errors: Missing when the layer or a required factor is absent, the
    /// reader's errors, makeTileSource's (Unsupported score kinds).
    Result<std::shared_ptr<const HeadSource>> get(int layer, int head);

private:
    std::shared_ptr<const data::TraceReader> m_reader;
    size_t m_capacity;
    std::mutex m_loadMutex;  // held while loading: one head loads at a time
    std::mutex m_mutex;      // guards m_heads
    std::list<std::shared_ptr<const HeadSource>> m_heads;  // most recent first
};

}  // namespace gatescope::widgets
