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

/// DejaVu Sans at `pixels` figure units.
QFont figureFont(double pixels, bool bold = false);

/// Draws the cells into `rect` (no smoothing), coloured by `settings` over `range`.
void drawCells(QPainter& p, const QRectF& rect, const Cells& cells, const ColorSettings& settings,
               const ValueRange& range);

/// A vertical colour bar in `rect` with tick labels on its right and `label` above.
void drawColorBar(QPainter& p, const QRectF& rect, const ColorSettings& settings,
                  const ValueRange& range, const std::string& label);

/// Axes of a token x token map in `rect`: token labels when each token is at least a text line
/// tall (`tokens`, display texts), position ticks otherwise. `xTitle`/`yTitle` under / left.
void drawTokenAxes(QPainter& p, const QRectF& rect, int64_t begin, int64_t end,
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
