// The positions a track shows: [begin, end) of a sequence of n, following the map (the queries on
// the canvas) or zoomed on its own. Display-free value type: the Retention dock holds one, the
// canvas publishes what it shows through ViewContext::setVisibleQueries.
#pragma once

#include <cstdint>

namespace gatescope::widgets {

struct PositionWindow {
    double begin = 0, end = 1;  ///< positions, end exclusive; at least kMinSpan apart
    bool follow = true;         ///< tracks the canvas's queries until zoomed by hand

    static constexpr double kMinSpan = 8;  ///< the closest zoom: 8 positions across

    /// The whole sequence [0, n).
    static PositionWindow whole(int64_t n);
    /// `visible` [begin, end) of the canvas, clamped to [0, n) and widened to kMinSpan.
    static PositionWindow following(double begin, double end, int64_t n);
    /// Zoomed by `factor` (< 1 in, > 1 out) about `at`, kept inside [0, n); no longer follows.
    PositionWindow zoomed(double at, double factor, int64_t n) const;
    /// The position under fraction `x` in [0, 1] of the track's width (clamped into [0, n)).
    int64_t positionAt(double x, int64_t n) const;
    /// Where position `p` (its centre) falls across the track, as a fraction (may be outside).
    double fractionOf(double p) const { return (p + 0.5 - begin) / (end - begin); }
};

}  // namespace gatescope::widgets
