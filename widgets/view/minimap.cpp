#include "widgets/view/minimap.h"

#include <algorithm>

namespace gatescope::widgets {

std::optional<MinimapBox> minimapBox(const TokenRect& visible, int64_t n, float side) {
    if (n <= 0 || side <= 0) return std::nullopt;
    const double total = static_cast<double>(n);
    const double k0 = std::clamp(visible.x0, 0.0, total), k1 = std::clamp(visible.x1, 0.0, total);
    const double q0 = std::clamp(visible.y0, 0.0, total), q1 = std::clamp(visible.y1, 0.0, total);
    if (k1 <= k0 || q1 <= q0) return std::nullopt;
    if (k1 - k0 >= 0.9 * total && q1 - q0 >= 0.9 * total) return std::nullopt;
    const double scale = side / total;
    auto edge = [&](double lo, double hi) {
        float a = static_cast<float>(lo * scale), b = static_cast<float>(hi * scale);
        if (b - a < 2) {  // a box of a few tokens on a 64k map: still a visible mark
            const float mid = (a + b) / 2;
            a = std::clamp(mid - 1, 0.f, side - 2);
            b = a + 2;
        }
        return std::pair(a, b);
    };
    const auto [x0, x1] = edge(k0, k1);
    const auto [y0, y1] = edge(q0, q1);
    return MinimapBox{x0, y0, x1, y1};
}

MapPoint minimapPoint(float x, float y, int64_t n, float side) {
    if (n <= 0 || side <= 0) return {};
    const double total = static_cast<double>(n), scale = total / side;
    return {std::clamp(x * scale, 0.0, total), std::clamp(y * scale, 0.0, total)};
}

}  // namespace gatescope::widgets
