#include "widgets/view/axis_ticks.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

int64_t tickStep(double tokensPerPixel, double minSpacingPx) {
    const double wanted = std::max(1.0, tokensPerPixel * minSpacingPx);
    for (int64_t scale = 1;; scale *= 10) {
        for (int64_t m : {1, 2, 5})
            if (double(m * scale) >= wanted) return m * scale;
        if (scale > (int64_t{1} << 52)) return scale;
    }
}

std::vector<AxisTick> axisTicks(double first, double last, int64_t n, double tokensPerPixel,
                                double minSpacingPx) {
    std::vector<AxisTick> ticks;
    const int64_t step = tickStep(tokensPerPixel, minSpacingPx);
    const double lo = std::max(0.0, first), hi = std::min(double(n), last);
    for (int64_t p = static_cast<int64_t>(std::ceil(lo / double(step))) * step; double(p) < hi;
         p += step)
        ticks.push_back({p, groupedNumber(p)});
    return ticks;
}

std::string groupedNumber(int64_t value) {
    const std::string digits = std::to_string(value < 0 ? -value : value);
    std::string out = value < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace gatescope::widgets
