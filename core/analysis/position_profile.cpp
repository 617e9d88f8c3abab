#include "core/analysis/position_profile.h"

#include <algorithm>
#include <cmath>

namespace gatescope::core {

PositionProfile profileOf(std::vector<double>&& values, int64_t binWidth) {
    PositionProfile out;
    const auto n = static_cast<int64_t>(values.size());
    const int64_t width = std::max<int64_t>(binWidth, 1);
    out.byBin.assign((n + width - 1) / width, 0.0);
    for (int64_t i = 0; i < n; ++i)
        out.byBin[i / width] += values[i];
    for (std::size_t b = 0; b < out.byBin.size(); ++b) {
        const int64_t begin = static_cast<int64_t>(b) * width;
        out.byBin[b] /= double(std::min(n, begin + width) - begin);
    }
    if (n == 0) {
        out.median = NAN;
        return out;
    }
    // The median of an even count is the mean of the two middle values, as numpy.median's.
    const auto middle = values.begin() + n / 2;
    std::nth_element(values.begin(), middle, values.end());
    out.median = *middle;
    if (n % 2 == 0) out.median = 0.5 * (out.median + *std::max_element(values.begin(), middle));
    return out;
}

}  // namespace gatescope::core
