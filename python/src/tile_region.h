// A rectangle of one head's map for Python's Trace.tile(): exact cells recomputed from the
// stored factors through the head's TileSource (what the viewer shows when zoomed in), or the
// cells of a stored pyramid level (what it shows zoomed out). Plain C++, no Python.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/maps/trace_head.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::python {

/// Largest region one call returns (1 GiB of float32).
inline constexpr int64_t kMaxRegionCells = int64_t{1} << 28;

/// The viewer's three maps: attention, decay, and their product cell by cell.
enum class RegionMap { Attention, Decay, Product };
std::optional<RegionMap> parseRegionMap(std::string_view word);

struct RegionRequest {
    int layer = 0, head = 0;
    int64_t row0 = 0, row1 = 0;  ///< query tokens [row0, row1)
    int64_t col0 = 0, col1 = 0;  ///< key tokens [col0, col1)
    RegionMap map = RegionMap::Attention;
    std::optional<int> level;  ///< a stored pyramid level; nullopt: exact
    data::Pool pool = data::Pool::Max;
};

/// rows x cols float32, row-major. Exact: one cell per token pair, 0 for disallowed pairs. At a
/// level: cells of 2^level tokens a side covering the token ranges rounded outward, so cell
/// (r, c) is the stored cell (firstRow + r, firstCol + c); product cells multiply the pooled
/// attention and decay cells (an approximation of the pooled product).
struct Region {
    int64_t rows = 0, cols = 0;
    int64_t firstRow = 0, firstCol = 0;  ///< exact: tokens; level: cells of that level
    std::vector<float> values;
};

/// Checks `request` against the trace: token ranges inside [0, N) and not empty, layer and head
/// present, the map stored (Missing: decay of a layer without decay, a level not stored), at most
/// kMaxRegionCells (Usage). Errors name the trace.
Status checkRegion(const data::TraceReader& reader, const RegionRequest& request);

/// Exact cells from `head` (of request.layer/head). Blocking, thread-safe.
Result<Region> exactRegion(const core::TraceHead& head, const RegionRequest& request,
                           const std::string& path);

/// Cells of request.level read from the pyramids. Blocking, thread-safe.
Result<Region> pyramidRegion(const data::TraceReader& reader, const RegionRequest& request);

}  // namespace gatescope::python
