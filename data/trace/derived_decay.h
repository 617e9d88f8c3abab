// Decay pyramids derived from c = log_decay_cumsum instead of stored (format v3).
//
// For the additive-decay family (FoX, GatedFWA, the Transformer) the decay map is
// decay(i, j) = exp(c_i - c_j) for allowed keys (j <= i, and j > i - window when window > 0), 0
// elsewhere. c is non-increasing (c_t = c_{t-1} + log f_t with log f_t <= 0), so both pools of a
// cell follow from c in O(cell side) or less:
// - max: the allowed pair nearest the diagonal, exp(c_rb - c_min(rb, ce - 1)), rb the cell's first
//   query and ce its key end (1 on a diagonal cell), or 0 when the window allows no pair;
// - mean: the sum over allowed pairs, separable off the diagonal and the window's edge
//   (sum_i e^(c_i - c_ref) * sum_j e^(c_ref - c_j)), row by row on those cells; every exponent
//   formed is <= 0, so nothing overflows whatever |c| (1.7e5 at 128k tokens).
// Sums are in float64 and the cells are rounded to float32 once, like the stored pyramids
// (kernels/cpu/pyramid_grid.cpp), whose cells they reproduce to float32 rounding; cells below
// e^-87 (about 1.6e-38, where the builders' float32 exp gives 0) are 0.
#pragma once

#include <cstdint>

#include "data/trace/trace_schema.h"

namespace gatescope::data {

/// Whether `c` [n] is non-increasing, the one property the derivation relies on (the writer
/// stores a decay pyramid instead of deriving it when a head's c is not).
bool isNonIncreasing(const float* c, int64_t n);

/// Fills `out` (kTileSide x kTileSide, row-major) with tile (tileRow, tileCol) of pyramid level
/// `level` of the decay map of one head with log_decay_cumsum `c` [n] and `window` (0: none):
/// cells past the level side and above the diagonal are 0, as in a stored tile.
void deriveDecayTile(const float* c, int64_t n, int64_t window, int level, Pool pool,
                     int64_t tileRow, int64_t tileCol, float* out);

}  // namespace gatescope::data
