// The map's you-are-here box: where the canvas's visible region lies on a small square showing
// the whole N x N map. Display-free geometry; the canvas draws it in a corner when zoomed in.
#pragma once

#include <cstdint>
#include <optional>

#include "widgets/view/viewport.h"

namespace gatescope::widgets {

/// A rectangle in minimap pixels, [x0, x1) x [y0, y1) inside [0, side) x [0, side).
struct MinimapBox {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// Where `visible` (token coordinates: keys across, queries down) lies on a minimap of `side`
/// pixels showing [0, n) x [0, n), clamped to it and at least 2 px a side so it stays visible.
/// nullopt when the view shows most of the map (at least 90% of it across and down) or does not
/// overlap it at all: no box to draw.
std::optional<MinimapBox> minimapBox(const TokenRect& visible, int64_t n, float side);

/// A point of the map in tokens (key across, query down).
struct MapPoint {
    double key = 0, query = 0;
};

/// The map point under minimap pixel (x, y) of a minimap of `side` pixels showing [0, n) x [0, n),
/// clamped to the map: where a click on the minimap takes the view.
MapPoint minimapPoint(float x, float y, int64_t n, float side);

}  // namespace gatescope::widgets
