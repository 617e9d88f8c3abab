// Shared pieces of the figures: the painting of heatmaps, axes, token labels, colour bars and
// titles (the cells come from core/maps/map_cells.h). Internal to widgets/figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <QFont>
#include <QRectF>

#include "core/maps/map_cells.h"
#include "widgets/view/color_scale.h"

class QPainter;

namespace gatescope::widgets::figures {

using core::Cells;

/// The finite min and max of the cells ({0, 1} when none).
ValueRange cellRange(const Cells& cells, bool symmetric);

/// What the cells hold: finite min and max, smallest positive value (0 when none).
struct CellStats {
    double lo = 0, hi = 0, minPositive = 0;
    bool any = false;
};
CellStats cellStats(const Cells& cells);
/// Both together (compare figures share one range).
CellStats merge(const CellStats& a, const CellStats& b);
/// The range `settings` give these cells: fixed, or automatic as the viewer resolves it
/// (color_scale.h resolveRange).
ValueRange settingsRange(const ColorSettings& settings, const CellStats& stats);

/// Blanks (NaN) the cells wholly in the masked future: keys after every query of the cell.
void blankFuture(Cells& cells);

/// DejaVu Sans at `pixels` figure units.
QFont figureFont(double pixels, bool bold = false);

/// Draws the cells into `rect` (no smoothing), coloured by `settings` over `range`. Cells of a
/// map region (cells.region set) are placed at their tokens with `rect` spanning the region: a
/// last row or column that covers fewer than `step` tokens is cut at the region's edge.
void drawCells(QPainter& p, const QRectF& rect, const Cells& cells, const ColorSettings& settings,
               const ValueRange& range);

/// A vertical colour bar in `rect` with tick labels on its right and `label` above.
void drawColorBar(QPainter& p, const QRectF& rect, const ColorSettings& settings,
                  const ValueRange& range, const std::string& label);

/// Axes of a map of `region` in `rect` (keys across, queries down, square tokens): token labels
/// when each token is at least a text line tall (`tokens`, display texts), position ticks
/// otherwise. `xTitle`/`yTitle` under / left.
void drawTokenAxes(QPainter& p, const QRectF& rect, const core::TokenRegion& region,
                   const std::vector<std::string>& tokens, const std::string& xTitle,
                   const std::string& yTitle, bool labelsY = true);

/// Position ticks under a horizontal axis spanning [begin, end) over rect's width.
void drawPositionTicks(QPainter& p, const QRectF& rect, double begin, double end);

/// Value ticks left of a vertical axis spanning [lo, hi] over rect's height.
void drawValueTicks(QPainter& p, const QRectF& rect, double lo, double hi);

/// Title text centred in `rect`.
void drawTitle(QPainter& p, const QRectF& rect, const std::string& text);

/// Nice tick step for a span to be cut in about `target` intervals.
double niceStep(double span, int target);

/// "%.3g"-like short number.
std::string shortNumber(double v);

}  // namespace gatescope::widgets::figures
