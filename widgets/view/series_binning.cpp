#include "widgets/view/series_binning.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatescope::widgets {

std::vector<Bin> binSeries(const float* values, int64_t size, double begin, double end, int bins) {
    std::vector<Bin> out(static_cast<size_t>(std::max(0, bins)));
    if (bins <= 0 || size <= 0 || !(end > begin)) return out;
    const double step = (end - begin) / bins;
    for (int b = 0; b < bins; ++b) {
        const double lo = begin + b * step, hi = lo + step;
        int64_t i0 = static_cast<int64_t>(std::floor(lo));
        int64_t i1 = std::max(i0 + 1, static_cast<int64_t>(std::ceil(hi)));
        i0 = std::max<int64_t>(0, i0);
        i1 = std::min(size, i1);
        Bin& bin = out[static_cast<size_t>(b)];
        double sum = 0;
        int64_t count = 0;
        float mn = std::numeric_limits<float>::infinity(), mx = -mn;
        for (int64_t i = i0; i < i1; ++i) {
            const float v = values[i];
            if (!std::isfinite(v)) continue;
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            sum += v;
            ++count;
        }
        if (count > 0) bin = {mn, mx, static_cast<float>(sum / count), false};
    }
    return out;
}

std::pair<float, float> finiteRange(const float* values, int64_t size) {
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (int64_t i = 0; i < size; ++i) {
        if (!std::isfinite(values[i])) continue;
        mn = std::min(mn, values[i]);
        mx = std::max(mx, values[i]);
    }
    if (!std::isfinite(mn)) return {0.f, 1.f};
    return {mn, mx};
}

}  // namespace gatescope::widgets
