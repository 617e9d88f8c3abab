// Shared pieces of the figures: map cells loaded at the resolution a figure needs, and the
// painting of heatmaps, axes, token labels, colour bars and titles. Internal to widgets/figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <QFont>
#include <QRectF>

#include "data/trace/trace_reader.h"
#include "kernels/cpu/tile_source.h"
#include "widgets/view/color_scale.h"

class QPainter;

namespace gatescope::widgets::figures {

/// rows x cols values, row-major; each cell covers `step` x `step` tokens of [begin, end).
struct Cells {
    int64_t rows = 0, cols = 0;
    int64_t begin = 0, end = 0;
    int64_t step = 1;
    std::vector<float> values;
    std::string source;  ///< "exact" or "pyramid level L (max)"

    float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

/// Map `kind` of (layer, head) over tokens [begin, end) x [begin, end), max-pooled to at most
/// `maxCells` per side: exact for ranges up to kExactLimit, else from the pyramid level that
/// fits.
Result<Cells> loadMapCells(const data::TraceReader& reader, int layer, int head,
                           kernels::MapKind kind, int64_t begin, int64_t end, int maxCells);

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
