#include "core/analysis/gate_horizon.h"

#include <algorithm>
#include <cmath>

namespace gatescope::core {

std::vector<double> gateHorizons(const data::Array& gates, int64_t head, double retention) {
    const int64_t n = gates.shape.at(1), channels = gates.shape.at(2);
    const double logRetention = std::log(retention);
    std::vector<double> horizon(n, 0.0);
    std::vector<double> prefix(n);  // prefix[t] = sum_{s <= t} g_s of one channel
    for (int64_t c = 0; c < channels; ++c) {
        double running = 0;
        for (int64_t t = 0; t < n; ++t)
            prefix[t] = running +=
                std::min(0.0, double(gates.values[(head * n + t) * channels + c]));
        // D(i, j) >= retention  <=>  prefix[i] - prefix[j] >= log(retention). prefix is
        // non-increasing, so the oldest such key j only moves forward as i grows.
        int64_t oldest = 0;
        for (int64_t i = 0; i < n; ++i) {
            while (prefix[i] - prefix[oldest] < logRetention)
                ++oldest;
            horizon[i] = std::max(horizon[i], double(i - oldest));
        }
    }
    return horizon;
}

std::vector<PositionProfile> gateHorizonProfiles(const data::Array& gates, double retention,
                                                 int64_t binWidth) {
    std::vector<PositionProfile> out;
    if (gates.shape.size() != 3) return out;
    for (int64_t h = 0; h < gates.shape[0]; ++h)
        out.push_back(profileOf(gateHorizons(gates, h, retention), binWidth));
    return out;
}

}  // namespace gatescope::core
