// Compare mode's cell math, display-free: difference tiles of two traces' tiles at the same key
// (A - B, or the log-ratio log pA - log pB), and the per-row divergences of two attention rows
// (KL(A||B) and Jensen-Shannon, with the same floor as core::compareTraces). Pure functions of
// their inputs; safe on any thread.
#pragma once

#include <cstdint>

#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

/// What the difference canvas shows. The value is TileKey::variant of its tiles.
enum class DiffMode { Difference = 0, LogRatio = 1 };

const char* toString(DiffMode mode);

/// Values at or below this count as this in the log-ratio (a probability floor: below it the
/// ratio is noise). |log-ratio| <= log(1 / kLogRatioFloor) ~ 13.8.
inline constexpr double kLogRatioFloor = 1e-6;

/// The difference tile of `a` and `b` (tiles of the same key of traces A and B): cell by cell
/// a - b, or log(max(a, floor)) - log(max(b, floor)); cells past either tile's valid rows/cols
/// are 0 and outside the valid area. The result's key is `key` (the diff view's key, whose
/// variant is the mode). Statistics are filled.
TilePtr differenceTile(const TileData& a, const TileData& b, DiffMode mode, const TileKey& key);

/// KL(p || q) and JS(p, q) in nats of two distributions over the same `n` cells (negative
/// entries count as 0; q below 1e-12 counts as 1e-12 in KL, as in core::compareTraces).
struct RowDivergence {
    int64_t row = 0;
    double klAB = 0;
    double js = 0;
};
RowDivergence rowDivergence(const float* p, const float* q, int64_t n);

}  // namespace gatescope::widgets
