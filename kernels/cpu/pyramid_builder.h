// Multi-resolution pyramid of one head's map, built from exact tiles of a TileSource without
// ever holding the N x N map. Level l has cells of 2^l x 2^l tokens and side S = ceil(N / 2^l);
// cell (r, c) covers rows [r 2^l, min((r + 1) 2^l, N)) x columns [c 2^l, min((c + 1) 2^l, N)).
// Each level comes max-pooled (needles stay visible) and mean-pooled (mass is kept), where
// disallowed cells (above the diagonal, outside the window) count as 0.
#pragma once

#include <cstdint>
#include <functional>

#include "data/common/result.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {

/// Pooling of a pyramid level (same order as data::Pool).
enum class Pool { Max, Mean };

/// Edge of the tiles a pyramid is delivered in.
inline constexpr int64_t kPyramidTile = 256;

/// S = ceil(n / 2^level) for n >= 0, 0 <= level <= 62.
int64_t pyramidSide(int64_t n, int level);

struct PyramidRequest {
    MapKind kind = MapKind::Attention;  ///< Attention or Decay (maps that are 0 when disallowed)
    int finestLevel = 0;                ///< cell size 2^finestLevel tokens
    int coarsestLevel = 0;              ///< inclusive, >= finestLevel, <= 62
    /// Refuse a finest level whose side exceeds this: the builder holds that grid in memory
    /// (12 bytes per cell), so this caps memory at about 12 x maxFinestSide^2 bytes.
    int64_t maxFinestSide = 2048;
    int threads = 0;  ///< workers computing the finest level (0: hardware concurrency)
};

struct PyramidCallbacks {
    /// Receives each level as kPyramidTile^2 row-major tiles, only tiles with tileCol <= tileRow,
    /// for Pool::Max then Pool::Mean, levels finest to coarsest. Cells past S are 0. Called on
    /// the calling thread; `tile` is valid only during the call. Required.
    std::function<void(int level, Pool pool, int64_t tileRow, int64_t tileCol, const float* tile)>
        onTile;
    /// Polled between tiles, from worker threads; return true to stop (buildPyramid then returns
    /// an ErrorKind::Cancelled error). Optional.
    std::function<bool()> isCancelled;
    /// Fraction done in [0, 1], non-decreasing, ends at 1 on success. Called from worker threads,
    /// never concurrently. Optional.
    std::function<void(double)> onProgress;
};

/// Computes the finest level from full-resolution kPyramidTile^2 tiles of the source (only those
/// that meet the allowed band: the rest are zero and handled analytically), in parallel over row
/// bands, then every coarser level from the one below. Memory: the finest grid plus one tile
/// per worker; never N x N. Errors (ErrorKind, the message says which): Usage for a bad level
/// range, a missing onTile or a finest side over maxFinestSide; Unsupported for Logit or a map
/// the source does not have; Cancelled. Error::file is left for the caller.
Status buildPyramid(const TileSource& source, const PyramidRequest& request,
                    const PyramidCallbacks& callbacks);

}  // namespace gatescope::kernels
