// Colour scales: from a map value to a position in [0, 1] of a colormap (linear, log or gamma),
// with a fixed or an automatic range, and the colouring of whole tiles. Display-free value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "data/common/result.h"
#include "widgets/view/colormap.h"

namespace gatescope::widgets {

enum class ScaleKind { Linear, Log, Gamma };

const char* toString(ScaleKind kind);
std::optional<ScaleKind> parseScale(std::string_view name);

/// The data range in force: [lo, hi].
struct ValueRange {
    double lo = 0;
    double hi = 1;
};

/// A fixed range written "LO:HI" (`--value-range`, scripts): finite, LO < HI, and LO > 0 under
/// the log scale. Errors: Usage naming `--value-range` and the problem.
Result<ValueRange> parseValueRange(std::string_view text, ScaleKind scale);

/// Everything that decides the colour of a value. Plain value; compare to detect a change.
struct ColorSettings {
    ColormapKind colormap = ColormapKind::Viridis;
    ScaleKind scale = ScaleKind::Linear;
    double gamma = 0.5;     ///< exponent of the Gamma scale (t^gamma), > 0
    bool autoRange = true;  ///< range from the values on screen, else [fixedLo, fixedHi]
    double fixedLo = 0;
    double fixedHi = 1;
    double logFloor = 1e-8;  ///< values below are clamped (log of 0 is -inf)

    bool operator==(const ColorSettings&) const = default;
};

/// Maps `v` into [0, 1] under `settings` and `range` (clamped). NaN maps to NaN. Log uses
/// max(lo, logFloor) as its lower end; Gamma is linear then raised to `gamma` (for diverging
/// colormaps, symmetrically about the centre: 0.5 + 0.5 sign(u) |u|^gamma with u = 2t - 1).
double normalizeValue(double v, const ColorSettings& settings, const ValueRange& range);

/// The range to use given the observed finite [minSeen, maxSeen] and smallest positive value:
/// fixed settings win; automatic ranges start at 0 for non-negative data, are symmetric around 0
/// for diverging colormaps and start at minPositive for Log. Never returns lo == hi.
ValueRange resolveRange(const ColorSettings& settings, double minSeen, double maxSeen,
                        double minPositive);

/// Colours `rows` x `cols` values (leading dimension `stride`) into `out` (same layout, one
/// packed RGBA per value). NaN becomes transparent; +-inf clamps to the ends.
void colorize(const float* values, int64_t rows, int64_t cols, int64_t stride,
              const ColorSettings& settings, const ValueRange& range, uint32_t* out);

/// The colour of one value.
uint32_t colorOf(double v, const ColorSettings& settings, const ValueRange& range);

}  // namespace gatescope::widgets
