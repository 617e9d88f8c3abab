// The colour bar's labels: the range the colours actually show (a log scale floors at
// ColorSettings::logFloor, so a data minimum of 1e-38 is shown, and labelled, as the floor) and
// the tick values with their text. Display-free: the canvas measures and places the text.
#pragma once

#include <string>
#include <vector>

#include "widgets/view/color_scale.h"

namespace gatescope::widgets {

/// The values the two ends of the colormap stand for under `settings`: `range`, except that a
/// log scale starts at max(lo, logFloor) and ends above it (normalizeValue's clamping).
ValueRange shownRange(const ColorSettings& settings, const ValueRange& range);

/// One label of the bar: the value, its height on the bar (0 bottom, 1 top; the bar is linear in
/// the value, or in its log for the log scale) and the text to print.
struct ColorBarTick {
    double value = 0;
    double at = 0;
    std::string text;
};

/// Top, middle and bottom labels of the bar for `range` under `settings`, top first. The bottom
/// one reads "<= x" when values below the shown range get its colour (the log floor cuts the
/// data's range). Texts use 3 significant digits.
std::vector<ColorBarTick> colorBarTicks(const ColorSettings& settings, const ValueRange& range);

/// The value at height `at` (0 bottom, 1 top) of the bar: linear in value, or in log for Log.
double colorBarValueAt(const ColorSettings& settings, const ValueRange& range, double at);

/// The caption under the bar: the scale ("linear", "log", "gamma 0.5").
std::string colorBarCaption(const ColorSettings& settings);

}  // namespace gatescope::widgets
