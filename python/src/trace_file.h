// The C++ side of Python's gatescope.Trace: one open trace (data::TraceReader) and a small cache
// of heads loaded for exact tiles and rows, so a notebook that looks at one head many times reads
// its factors once. Plain C++: the bindings (core_module.cpp, tile_bindings.cpp) wrap it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>

#include "core/maps/query_row.h"
#include "core/maps/trace_head.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"
#include "tile_region.h"

namespace gatescope::python {

/// Thread-safe: every method may run from several threads at once (the bindings release the
/// GIL); the reader serializes HDF5, the head cache has its own lock.
class TraceFile {
public:
    /// Opens `path` (TraceReader::open's checks and errors) with a block cache of `cacheBytes`.
    static Result<std::shared_ptr<TraceFile>> open(const std::filesystem::path& path,
                                                   size_t cacheBytes);

    const data::TraceReader& reader() const { return *m_reader; }
    std::shared_ptr<const data::TraceReader> sharedReader() const { return m_reader; }

    /// Head `head` of `layer` ready for exact tiles: from the cache, else loaded (and kept; the
    /// last kHeads heads stay). Errors: loadTraceHead's, with usage errors for indices out of
    /// range.
    Result<std::shared_ptr<const core::TraceHead>> head(int layer, int head) const;

    /// The region `request` asks for: exact (through head()) or from a pyramid level.
    Result<Region> region(const RegionRequest& request) const;

    /// core::queryRow of (layer, head).
    Result<core::QueryRow> row(int layer, int head, int64_t query, int topK) const;

    static constexpr size_t kHeads = 8;

private:
    explicit TraceFile(std::shared_ptr<data::TraceReader> reader) : m_reader(std::move(reader)) {}

    std::shared_ptr<data::TraceReader> m_reader;
    mutable std::mutex m_mutex;
    mutable std::list<std::shared_ptr<const core::TraceHead>> m_heads;  ///< most recent first
};

}  // namespace gatescope::python
