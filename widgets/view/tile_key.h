// TileKey and TileData: the unit of work of the viewer. A tile is 256 x 256 cells of one map of
// one head, either from a stored pyramid level or recomputed exactly from the factors (cell =
// one token pair). Both are plain immutable values, safe to share between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/maps/map_view.h"
#include "data/trace/trace_schema.h"

namespace gatescope::widgets {

/// The map a view shows (core/maps/map_view.h: attention, decay, or their product); its
/// toString and parseMapView are core's.
using core::MapView;
using core::parseMapView;

/// Cells per tile side (the trace's chunk edge).
inline constexpr int64_t kTile = data::kTileSide;

struct TileKey {
    int layer = 0;
    int head = 0;
    MapView map = MapView::Attention;
    data::Pool pool = data::Pool::Max;  ///< ignored (Max) for exact tiles
    int level = 0;                      ///< cells of 2^level tokens; 0 for exact tiles
    bool exact = false;                 ///< recomputed from factors rather than read
    int64_t row = 0;                    ///< tile row: cells [row * 256, row * 256 + 256)
    int64_t col = 0;
    int variant = 0;  ///< a client's variant of the map (compare mode: the DiffMode); 0 otherwise

    bool operator==(const TileKey&) const = default;
    /// Tokens per cell side.
    int64_t cellTokens() const { return int64_t{1} << level; }
    /// Tokens per tile side.
    int64_t tileTokens() const { return kTile << level; }
};

struct TileKeyHash {
    size_t operator()(const TileKey& k) const;
};

/// One loaded tile: 256 x 256 values row-major (padding past rows/cols is 0) and statistics
/// over the valid cells, ignoring non-finite values.
struct TileData {
    TileKey key;
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<float> values;
    float min = 0;          ///< smallest finite valid value (0 when none)
    float max = 0;          ///< largest finite valid value (0 when none)
    float minPositive = 0;  ///< smallest finite value > 0 (0 when none): for log scales

    float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * kTile + c)]; }
    size_t bytes() const { return values.size() * sizeof(float) + sizeof(TileData); }
};

using TilePtr = std::shared_ptr<const TileData>;

/// Fills min, max and minPositive from values[0..rows) x [0..cols).
void computeTileStats(TileData& tile);

}  // namespace gatescope::widgets
