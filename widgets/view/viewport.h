// Viewport: the mapping between a canvas's pixels and token coordinates of an N x N map.
// Keys (columns j) run along x, queries (rows i) along y; cells are square on screen.
// Display-free and a plain value type: copy it freely, use it from one thread at a time.
#pragma once

#include <cstdint>
#include <optional>

namespace gatescope::widgets {

/// A rectangle in token coordinates (fractional tokens), half-open: [x0, x1) x [y0, y1).
struct TokenRect {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// One cell of the map: query row and key column, both in [0, N).
struct Cell {
    int64_t query = 0;
    int64_t key = 0;
};

class Viewport {
public:
    /// Canvas size in pixels (> 0); keeps the token under the canvas centre where it was.
    void setScreenSize(double width, double height);
    /// N, the side of the map; resets the view to fitAll().
    void setSequenceLength(int64_t n);
    /// Shows the whole map, centred, with a small margin.
    void fitAll();

    int64_t sequenceLength() const { return m_n; }
    double width() const { return m_width; }
    double height() const { return m_height; }
    /// Tokens per screen pixel (the zoom level): > 1 at overview, < 1 when cells are many pixels.
    double tokensPerPixel() const { return m_tpp; }
    /// Bounds of tokensPerPixel(): the most zoomed in (a cell of 96 px) and the whole map in a
    /// quarter of the canvas.
    double minTokensPerPixel() const;
    double maxTokensPerPixel() const;

    double keyAt(double sx) const { return m_originKey + sx * m_tpp; }
    double queryAt(double sy) const { return m_originQuery + sy * m_tpp; }
    double screenX(double key) const { return (key - m_originKey) / m_tpp; }
    double screenY(double query) const { return (query - m_originQuery) / m_tpp; }

    /// Multiplies the magnification by `factor` (> 1 zooms in) keeping the token under pixel
    /// (sx, sy) fixed; the result is clamped to the tokensPerPixel() bounds. Zooming in over the
    /// masked future (key after query) keeps the query row and brings its diagonal cell under
    /// the mouse instead: a zoom never lands in the blank half.
    void zoomAt(double sx, double sy, double factor);
    /// Moves the content by (dx, dy) pixels (drag direction).
    void panPixels(double dx, double dy);
    /// Puts token coordinates (key, query) at the canvas centre.
    void centerOn(double key, double query);
    /// Sets the zoom (clamped) keeping the canvas centre fixed.
    void setTokensPerPixel(double tpp);

    /// The part of the map on screen, clipped to [0, N)^2 (empty when nothing is visible).
    TokenRect visible() const;
    /// The cell under pixel (sx, sy), or nothing when outside the map.
    std::optional<Cell> cellAt(double sx, double sy) const;

private:
    void clamp();

    int64_t m_n = 1;
    double m_width = 1, m_height = 1;
    double m_tpp = 1;
    double m_originKey = 0, m_originQuery = 0;  // token coordinates of pixel (0, 0)
};

}  // namespace gatescope::widgets
