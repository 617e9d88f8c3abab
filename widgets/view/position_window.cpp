#include "widgets/view/position_window.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

namespace {
/// [begin, end) with its span at least kMinSpan (or n) and inside [0, n).
PositionWindow fitted(double begin, double end, int64_t n, bool follow) {
    const double total = std::max<double>(1, static_cast<double>(n));
    double span = std::clamp(end - begin, std::min(PositionWindow::kMinSpan, total), total);
    const double centre = (begin + end) / 2;
    begin = std::clamp(centre - span / 2, 0.0, total - span);
    return {begin, begin + span, follow};
}
}  // namespace

PositionWindow PositionWindow::whole(int64_t n) {
    return {0, std::max<double>(1, static_cast<double>(n)), true};
}

PositionWindow PositionWindow::following(double begin, double end, int64_t n) {
    if (!(end > begin) || !std::isfinite(begin) || !std::isfinite(end)) return whole(n);
    return fitted(begin, end, n, true);
}

PositionWindow PositionWindow::zoomed(double at, double factor, int64_t n) const {
    const double b = at - (at - begin) * factor, e = at + (end - at) * factor;
    return fitted(b, e, n, false);
}

int64_t PositionWindow::positionAt(double x, int64_t n) const {
    const double p = std::floor(begin + std::clamp(x, 0.0, 1.0) * (end - begin));
    return std::clamp<int64_t>(static_cast<int64_t>(p), 0, std::max<int64_t>(0, n - 1));
}

}  // namespace gatescope::widgets
