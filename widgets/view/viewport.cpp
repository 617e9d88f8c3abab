#include "widgets/view/viewport.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

void Viewport::setScreenSize(double width, double height) {
    const double ck = keyAt(m_width / 2), cq = queryAt(m_height / 2);
    m_width = std::max(1.0, width);
    m_height = std::max(1.0, height);
    centerOn(ck, cq);
}

void Viewport::setSequenceLength(int64_t n) {
    m_n = std::max<int64_t>(1, n);
    fitAll();
}

void Viewport::fitAll() {
    const double side = std::min(m_width, m_height) * 0.96;
    m_tpp = static_cast<double>(m_n) / std::max(1.0, side);
    clamp();
    centerOn(m_n / 2.0, m_n / 2.0);
}

double Viewport::minTokensPerPixel() const {
    return 1.0 / 96.0;
}

double Viewport::maxTokensPerPixel() const {
    return std::max(minTokensPerPixel(), 4.0 * m_n / std::max(1.0, std::min(m_width, m_height)));
}

void Viewport::zoomAt(double sx, double sy, double factor) {
    if (!(factor > 0)) return;
    const double query = queryAt(sy);
    double key = keyAt(sx);
    if (factor > 1 && key > query) key = query;
    m_tpp /= factor;
    clamp();
    m_originKey = key - sx * m_tpp;
    m_originQuery = query - sy * m_tpp;
}

void Viewport::panPixels(double dx, double dy) {
    m_originKey -= dx * m_tpp;
    m_originQuery -= dy * m_tpp;
}

void Viewport::centerOn(double key, double query) {
    m_originKey = key - m_width / 2 * m_tpp;
    m_originQuery = query - m_height / 2 * m_tpp;
}

void Viewport::setTokensPerPixel(double tpp) {
    const double ck = keyAt(m_width / 2), cq = queryAt(m_height / 2);
    m_tpp = tpp;
    clamp();
    centerOn(ck, cq);
}

TokenRect Viewport::visible() const {
    TokenRect r;
    r.x0 = std::clamp(keyAt(0), 0.0, double(m_n));
    r.x1 = std::clamp(keyAt(m_width), 0.0, double(m_n));
    r.y0 = std::clamp(queryAt(0), 0.0, double(m_n));
    r.y1 = std::clamp(queryAt(m_height), 0.0, double(m_n));
    return r;
}

std::optional<Cell> Viewport::cellAt(double sx, double sy) const {
    const double key = std::floor(keyAt(sx)), query = std::floor(queryAt(sy));
    if (key < 0 || query < 0 || key >= m_n || query >= m_n) return std::nullopt;
    return Cell{static_cast<int64_t>(query), static_cast<int64_t>(key)};
}

void Viewport::clamp() {
    if (!std::isfinite(m_tpp)) m_tpp = maxTokensPerPixel();
    m_tpp = std::clamp(m_tpp, minTokensPerPixel(), maxTokensPerPixel());
}

}  // namespace gatescope::widgets
